import Glibc
import Testing
@testable import TouchGate
@testable import TouchGateSystem

@Suite struct ProcessIdentityTests {
    @Test func thisProcessIsNamedByPidAndStartTime() throws {
        let current = try #require(ProcessIdentity.current)
        #expect(current.pid == getpid())
        #expect(current.startTime > 0)
        #expect(current.isAlive)
        #expect(ProcessIdentity.of(getpid()) == current)
    }

    @Test func theSamePidWithAnotherStartTimeIsAnotherProcess() throws {
        let current = try #require(ProcessIdentity.current)
        #expect(!ProcessIdentity(pid: current.pid, startTime: current.startTime + 1).isAlive)
        #expect(!ProcessIdentity(pid: 0, startTime: current.startTime).isAlive)
        #expect(ProcessIdentity.of(-1) == nil)
    }

    /// A command name with spaces and parentheses does not shift the fields.
    @Test func aCommandNameWithParenthesesIsSkipped() throws {
        let fields = (3...21).map { "\($0)" }.joined(separator: " ")
        let line = "4242 (evil) 1 2 3 (x) y) \(fields) 987654 23 24\n"
        #expect(ProcessIdentity.startTime(statLine: ArraySlice(Array(line.utf8))) == 987_654)
        #expect(ProcessIdentity.startTime(statLine: ArraySlice(Array("4242 (short) S 1\n".utf8))) == nil)
        #expect(ProcessIdentity.startTime(of: 1) != nil)
    }
}
