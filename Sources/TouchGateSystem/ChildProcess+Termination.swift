import Glibc

extension ChildProcess {
    /// How a child ended, decoded from `waitpid`'s status (`WIFEXITED`, `WEXITSTATUS`,
    /// `WTERMSIG`: macros Swift cannot import).
    package enum Termination: Hashable, Sendable, CustomStringConvertible {
        /// It exited with `code` (0-255).
        case exited(Int32)
        /// A signal ended it.
        case signalled(Int32)

        /// Decodes a `waitpid` status of a child that ended (not one stopped or continued).
        package init(waitStatus status: Int32) {
            let signal = status & 0x7F
            self = signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
        }

        /// The status a shell reports: the exit code, or 128 plus the signal.
        package var shellStatus: Int32 {
            switch self {
            case .exited(let code): code
            case .signalled(let signal): 128 + signal
            }
        }

        /// Whether it exited 0.
        package var succeeded: Bool { self == .exited(0) }

        package var description: String {
            switch self {
            case .exited(let code): "exited \(code)"
            case .signalled(let signal): "killed by signal \(signal)"
            }
        }
    }

    /// Sends `signal` to the child (with `group`, to its process group: a child started with
    /// `newProcessGroup` and whatever it started). A child already reaped is not signalled again
    /// by mistake only while it is not reaped: call before ``wait()``.
    package func send(_ signal: Int32, group: Bool = false) {
        if group { _ = kill(-pid, signal) }
        _ = kill(pid, signal)
    }

    /// SIGKILL (to its group too with `group`) and reap: the end of a child that must not outlive its use.
    @discardableResult
    package func killAndReap(group: Bool = false) -> Termination {
        send(SIGKILL, group: group)
        return wait()
    }
}
