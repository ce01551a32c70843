import TouchGate
import TouchGateSystem

/// What `touchgate shell` needs from the CLI: the session and its store, the gate's command
/// line, and the program.
package struct ShellOwnerSession {
    /// Asks the store whether the session is locked now (a store that fails answers `true`), and
    /// the `idle-seconds` it has.
    package var check: (ShellOwnerCheckReason) -> (locked: Bool, idleSeconds: Int)
    /// Reads the store's `idle-seconds` now (`nil` when it cannot): the owner asks each
    /// ``ShellOwnerStateMachine/settingsReadSeconds`` while the session is shown.
    package var idleSeconds: () -> Int?
    /// Reads whether the store has the session locked, writing nothing (``ShellSession/lookAtLock()``).
    package var look: () -> (locked: Bool, idleSeconds: Int)
    /// Records a lifecycle event of the session (an event its state does not allow is skipped).
    package var record: (LifecycleEvent) -> Void
    /// The gate's command line (the path first): `touchgate gate --session ID`, with the store's options.
    package var gate: [String]
    /// The program's path, its argument vector and its environment.
    package var path: FilePath
    package var argv: [String]
    package var environment: [String]
    /// The channel's listening socket (``OwnerChannel``), or -1.
    package var channel: Int32
    /// The process's one clock (the store's): the idle time and the owner's deadlines read it.
    package var clock: any Clock

    package init(check: @escaping (ShellOwnerCheckReason) -> (locked: Bool, idleSeconds: Int),
                look: @escaping () -> (locked: Bool, idleSeconds: Int),
                record: @escaping (LifecycleEvent) -> Void, gate: [String], path: FilePath, argv: [String],
                environment: [String], channel: Int32, clock: any Clock, idleSeconds: @escaping () -> Int? = { nil }) {
        self.check = check
        self.idleSeconds = idleSeconds
        self.look = look
        self.record = record
        self.gate = gate
        self.path = path
        self.argv = argv
        self.environment = environment
        self.channel = channel
        self.clock = clock
    }
}
