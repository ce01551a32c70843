import Glibc
import Testing
import TouchGateSystem

/// ``Errno``: the system's text (`strerror_r`), the current value, matching in a `catch`.
@Suite struct ErrnoTests {
    @Test func theTextIsTheSystems() {
        #expect(Errno.interrupted.description == "Interrupted system call")
        #expect(Errno.noSuchFileOrDirectory.description == "No such file or directory")
        #expect("\(Errno(rawValue: EACCES))" == "Permission denied")
    }

    @Test func anUnknownValueStillHasAText() {
        #expect(Errno(rawValue: 99_999).description.hasPrefix("Unknown error"))
    }

    @Test func theCurrentValueIsErrnos() {
        #expect(open("/nonexistent/touchgate-errno-test", O_RDONLY) == -1)
        #expect(Errno.current == .noSuchFileOrDirectory)
    }

    @Test func aCaughtErrorMatches() {
        do {
            throw Errno.badFileDescriptor
        } catch Errno.badFileDescriptor {
            // matched
        } catch {
            Issue.record("\(error) did not match")
        }
    }
}
