import TouchGateArguments

/// The options of the `touchgate` command line, which ``CommandTable`` gives its commands.
extension OptionSpec {
    static let store = OptionSpec("--store", value: "PATH", values: .files,
        "the store (env TOUCHGATE_STORE; default $XDG_STATE_HOME/touchgate/touchgate.sqlite, else ~/.local/state/touchgate/touchgate.sqlite)")
    static let storeID = OptionSpec("--store-id", value: "ID",
        "only the store with this id (touchgate status shows it): a missing store is not created, another is refused (exit 74)")
    static let user = OptionSpec("--user", value: "NAME", values: .users,
        "whose lock and settings (env TOUCHGATE_USER; default the invoking user)")
    static let json = OptionSpec("--json", "one JSON object on standard output")
    static let stdin = OptionSpec("--stdin", short: "-S",
        "read each answer as one line of standard input (like sudo -S); prompts go to standard error")
    static let pamConfdir = OptionSpec("--pam-confdir", value: "DIR", values: .directories,
        "read PAM service files from DIR through pam_start_confdir (env TOUCHGATE_PAM_CONFDIR)")
    static let help = OptionSpec("--help", short: "-h", "help on standard output (for the command when one is given)")
    static let version = OptionSpec("--version", "the version, and the SQLite release it runs")

    static let reason = OptionSpec("--reason", value: "TEXT", "the reason the prompt shows")
    static let noInteraction = OptionSpec("--no-interaction",
        "never prompt: an evaluation that needs a prompt ends in notInteractive (exit 11)")
    static let session = OptionSpec("--session", value: "ID",
        "the session (default TOUCHGATE_SESSION, else the tmux session, else the terminal's path)")
    static let policy = OptionSpec("--policy", value: "POLICY", values: .policies,
        "device-owner (default: the biometric factor, then the passcode) or biometrics (the biometric factor only)")
    static let limit = OptionSpec("--limit", value: "N", "how many entries, newest first (default 20, at most 100000)")
    static let lock = OptionSpec("--lock", "a lock request (tmux's lock-command): lock unless back within the grace period")
    static let idleSince = OptionSpec("--idle-since", value: "EPOCH",
        "the shell has been idle since then: idle-seconds or more count as a trip to the background")
    static let tmuxSocket = OptionSpec("--tmux-socket", value: "PATH",
        "the socket of the tmux server the session lives in (tmux's lock-command names it), to name the session and lock its clients")
    static let cancelable = OptionSpec("--cancelable",
        "Ctrl-C ends the gate (exit 2, userCancel) instead of clearing the line: for a session that shows nothing yet (touchgate shell's first gate)")
    static let unit = OptionSpec("--unit", "print the systemd user unit (touchgate-watch.service) instead of watching")
    static let man = OptionSpec("--man", "print the manual page touchgate(1) in roff")

    /// The options of every command that runs an evaluation.
    static let evaluating: [OptionSpec] = [.reason, .noInteraction, .session]
}
