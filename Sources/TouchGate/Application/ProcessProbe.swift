import Glibc
import TouchGateSystem

/// What the use cases know and do about processes: which one this is, whether one is on a
/// terminal, whether a claim's owner still runs, and ending its prompt.
///
/// Injected so that a use case never reads `getpid()` or sends a signal on its own; the one
/// implementation is ``SystemProcessProbe`` (tests drive it with real child processes).
package protocol ProcessProbe: Sendable {
    /// This process, as a claim names it.
    var current: ProcessIdentity? { get }
    /// The pid this process claims prompts as.
    var currentPID: Int32 { get }
    /// Whether process `pid` has a controlling terminal; `nil` when that cannot be read.
    func hasControllingTerminal(_ pid: Int32) -> Bool?
    /// Whether `process` still runs (its pid with the same start time).
    func isAlive(_ process: ProcessIdentity) -> Bool
    /// Ends the evaluation `process` is waiting in with appCancel (SIGUSR1), if it still runs.
    func cancelPrompt(of process: ProcessIdentity)
}

/// The processes of this machine, through /proc and `kill`.
///
/// The corresponding C functions are `getpid` and `kill`.
package struct SystemProcessProbe: ProcessProbe {
    package init() {}

    package var current: ProcessIdentity? { ProcessIdentity.current }

    package var currentPID: Int32 { getpid() }

    package func hasControllingTerminal(_ pid: Int32) -> Bool? { ProcessIdentity.hasControllingTerminal(pid) }

    package func isAlive(_ process: ProcessIdentity) -> Bool { process.isAlive }

    package func cancelPrompt(of process: ProcessIdentity) {
        // Checked again just before: a pid whose start time no longer matches is another process.
        guard process.pid != getpid(), process.isAlive else { return }
        kill(process.pid, SIGUSR1)
    }
}
