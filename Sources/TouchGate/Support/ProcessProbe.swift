import Glibc

/// What the gate asks of processes: its own pid, whether a process is on a terminal, whether a
/// prompt's owner lives, and ending that owner's prompt. Injected, so the gate's rules about
/// other processes run against the system or against a test's processes.
public protocol ProcessProbe: Sendable {
    /// The pid this process claims prompts as.
    var currentPID: Int32 { get }
    /// Whether process `pid` has a controlling terminal; `nil` when that cannot be read.
    func hasControllingTerminal(_ pid: Int32) -> Bool?
    /// Whether `owner` is still the process it was (same pid, same start time).
    func isAlive(_ owner: ProcessIdentity) -> Bool
    /// Ends `owner`'s prompt (SIGUSR1: its evaluation ends with appCancel).
    func endPrompt(of owner: ProcessIdentity)
}

/// The system's processes (`/proc`, `getpid`, `kill`).
public struct SystemProcesses: ProcessProbe {
    public init() {}

    public var currentPID: Int32 { getpid() }

    public func hasControllingTerminal(_ pid: Int32) -> Bool? { ProcessIdentity.hasControllingTerminal(pid) }

    public func isAlive(_ owner: ProcessIdentity) -> Bool { owner.isAlive }

    /// The corresponding C function is `kill`.
    public func endPrompt(of owner: ProcessIdentity) { kill(owner.pid, SIGUSR1) }
}
