import Glibc
import Testing
@testable import TouchGate
@testable import TouchGateStore
@testable import TouchGateSystem

/// ``ShellSession``, the terminal owner's session, against a real store whose clock the test
/// sets: the launch lock, the idle lock, a store that cannot say, and the session's end.
@Suite(.removesItsFiles) struct ShellSessionTests {
    static func session(lockOn: Bool, idle: Int = 0, grace: Int = 0) throws -> (ShellSession, TestClock) {
        let clock = TestClock()
        let store = try Store(path: FilePath(temporaryStorePath()), clock: clock)
        _ = try store.set(.idleSeconds, to: String(idle), user: "alice")
        _ = try store.set(.graceSeconds, to: String(grace), user: "alice")
        if lockOn { try store.setEnabled(true, user: "alice", session: nil) }
        let me = try #require(ProcessIdentity.current)
        return (ShellSession(store: store, id: "shell-test", user: "alice", owner: me), clock)
    }

    @Test func theOwnerHoldsTheTerminalOnlyOnATerminalOutsideTmuxAndAnotherOwner() {
        #expect(!ShellSession.runsProgramDirectly(insideTmux: false, insideOwner: false, onTerminal: true))
        #expect(ShellSession.runsProgramDirectly(insideTmux: true, insideOwner: false, onTerminal: true))
        #expect(ShellSession.runsProgramDirectly(insideTmux: false, insideOwner: true, onTerminal: true))
        #expect(ShellSession.runsProgramDirectly(insideTmux: false, insideOwner: false, onTerminal: false))
        // A terminal on standard input that is not the controlling terminal (su USER -c CMD): no gate could ask there.
        #expect(ShellSession.runsProgramDirectly(insideTmux: false, insideOwner: false, onTerminal: true, controllingTerminal: false))
    }

    @Test func aLaunchWhileTheLockIsOnIsLockedAndListsTheOwner() throws {
        let (session, _) = try Self.session(lockOn: true, idle: 300)
        session.start()
        #expect(session.check(.launch) == (locked: true, idleSeconds: 300))
        #expect(try session.store!.shellOwners(session: "shell-test").map(\.owner) == [session.owner])
        session.end()
        #expect(try session.store!.shellOwners(session: "shell-test").isEmpty)
        #expect(try session.store!.session("shell-test")?.lifecycle.state == .notRunning)
    }

    @Test func withTheLockOffNothingLocksAndTheIdleLimitIsStillSaid() throws {
        let (session, clock) = try Self.session(lockOn: false, idle: 60)
        session.start()
        #expect(session.check(.idle(since: clock.now - 3600)) == (locked: false, idleSeconds: 60))
    }

    @Test func idleTimeLocksOnlyOnceItReachesTheLimit() throws {
        let (session, clock) = try Self.session(lockOn: false, idle: 60, grace: 0)
        session.start()
        // Launched unlocked, then the lock goes on: only idle time can lock it now.
        try session.store!.setEnabled(true, user: "alice", session: nil)
        let since = clock.now
        clock.advance(by: 59)
        #expect(session.check(.idle(since: since)).locked == false)
        #expect(try session.store!.session("shell-test")?.lifecycle.locked == false)
        clock.advance(by: 1)
        #expect(session.check(.idle(since: since)).locked == true)
        // And it stays locked at the next look, whatever the reason.
        #expect(session.check(.request).locked == true)
    }

    @Test func aStoreThatCannotSayLocks() throws {
        let me = try #require(ProcessIdentity.current)
        let session = ShellSession(store: nil, id: "shell-none", user: "alice", owner: me)
        session.start()
        #expect(session.check(.launch) == (locked: true, idleSeconds: 0))
        #expect(session.check(.request) == (locked: true, idleSeconds: 0))
        session.end()
    }
}
