import TouchGate

/// One command of the `touchgate` tool.
package enum Command: Equatable, Sendable {
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
    /// `lockdown`: the biometric factor off until the next passcode success (``Store/lockdown(user:byAdministrator:session:actor:)``).
    case lockdown
    case configGet(key: Configuration.Key?)
    case configSet(key: Configuration.Key, value: String, EvaluationOptions)
    case log(limit: Int)
    case event(LifecycleEvent, session: String?)
    case gate(GateOptions)
    /// `watch [--unit]`: follow logind (suspend, screen lock); `--unit` prints the systemd user unit.
    case watch(unit: Bool)
    /// `lock [SESSION]`: every session (or one) locked and covered now.
    case lock(session: String?)
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
