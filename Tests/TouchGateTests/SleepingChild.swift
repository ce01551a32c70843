import Glibc
@testable import TouchGate
import TouchGateSystem

/// A real child process (`/bin/sleep`) for a test to name as a prompt's owner, and to see
/// whether it was signalled.
final class SleepingChild {
    let pid: pid_t
    private var reaped: Int32?

    init() throws {
        let argv: [UnsafeMutablePointer<CChar>?] = (["/bin/sleep", "30"] as [String]).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        // Clean signals: the test process may block or ignore SIGUSR1, and a child would inherit that.
        let spawned = SpawnAttributes.clean { attributes in posix_spawn(&pid, "/bin/sleep", nil, attributes, argv, environ) }
        guard spawned == 0 else { throw SpawnFailed() }
        self.pid = pid
    }

    /// The child as a claim names it.
    var identity: ProcessIdentity? { ProcessIdentity.of(pid) }

    /// The signal that ended the child within `seconds`, or `nil` when it still runs (it is then killed).
    func endingSignal(within seconds: Double = 2) -> Int32? {
        var status: Int32 = 0
        for _ in 0..<Int(seconds * 100) {
            if waitpid(pid, &status, WNOHANG) == pid {
                reaped = status
                return status & 0x7F
            }
            usleep(10_000)
        }
        return nil
    }

    deinit {
        if reaped == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
    }

    struct SpawnFailed: Error {}
}
