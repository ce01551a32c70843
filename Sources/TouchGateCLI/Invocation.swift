import TouchGate

/// A parsed command line: the global options and one command with its own options.
public struct Invocation: Equatable, Sendable {
    /// `--store PATH`; the environment and the default are applied when the command runs.
    public var storePath: String?
    /// `--user NAME`.
    public var user: String?
    /// `--store-id ID`: the store must exist and have this id (the generated snippets pass it).
    public var storeID: String?
    /// `--system`: the system ledger (``PAMHostRequest/systemStorePath``) instead of a user store.
    public var system = false
    /// `--json`: one JSON object on standard output.
    public var json = false
    /// `-S` / `--stdin`: each answer is one line of standard input.
    public var answersFromStandardInput = false
    /// `--pam-confdir DIR`: read PAM service files from DIR through `pam_start_confdir`.
    public var pamConfigurationDirectory: String?
    public var command: Command

    public init(command: Command) {
        self.command = command
    }
}

/// What an evaluating command was asked to do.
public struct EvaluationOptions: Equatable, Sendable {
    public var policy: AuthPolicy = .deviceOwner
    public var reason: String?
    public var noInteraction = false
    /// `--session ID`.
    public var session: String?

    public init() {}
}

/// One command of the `touchgate` tool.
public enum Command: Equatable, Sendable {
    case help(topic: String?)
    case version
    case status
    case enable(EvaluationOptions)
    case disable(EvaluationOptions)
    case enroll(EvaluationOptions)
    case unenroll(EvaluationOptions)
    case auth(EvaluationOptions)
    case canEvaluate(EvaluationOptions)
    case reset(EvaluationOptions)
    case configGet(key: Configuration.Key?)
    case configSet(key: Configuration.Key, value: String, EvaluationOptions)
    case log(limit: Int)
    case event(LifecycleEvent, session: String?)
    case gate(GateOptions)
    /// `watch [--unit]`: follow logind (suspend, screen lock); `--unit` prints the systemd user unit.
    case watch(unit: Bool)
    case tmuxConf
    /// `tmux-hook HOOK CLIENT [SESSION]`: what the hooks from `tmux-conf` run.
    case tmuxHook(TmuxHook, client: String, session: String?)
    case shellInit(shell: String)
    /// `shell [-- PROGRAM ARGS]`: hold the terminal and run the program (the user's shell) under the lock.
    case shell(program: [String], login: Bool = false)
    /// `completions bash|zsh`: the completion script derived from ``CommandTable``.
    case completions(shell: String)
    /// `help --man`: the manual page touchgate(1) in roff, derived from ``CommandTable``.
    case manPage
    case demo
    /// `test-world create DIR`: a private PAM world for tests (``PAMWorld``), its environment printed.
    case testWorldCreate(directory: String)
    /// `test-world remove DIR`: deletes a world `test-world create` made.
    case testWorldRemove(directory: String)
    /// `test-world sensor DIR`: a ``SimulatedFingerprintSensor`` in DIR until a signal.
    case testWorldSensor(directory: String)
    /// `test-world scan DIR COMMAND`: one command to that sensor's virtual device.
    case testWorldScan(directory: String, command: String)
}

/// What `touchgate gate` was asked to do.
public struct GateOptions: Equatable, Sendable {
    /// `--session ID`.
    public var session: String?
    /// `--lock`: this is a lock request (tmux's lock-command): lock the session now unless it is
    /// returning from the background within the grace period.
    public var lockRequest = false
    /// `--idle-since EPOCH`: the shell has been idle since then; past `idle-seconds` that counts
    /// as a trip to the background that began then.
    public var idleSince: Double?
    /// `--tmux-socket PATH`: the socket of the session's tmux server, from tmux's lock-command,
    /// for a session the hooks have not recorded yet (its launch).
    public var tmuxSocket: String?

    public init() {}
}
