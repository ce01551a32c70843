import Glibc

extension Runner {
    /// `--help` / `help [COMMAND]`: on standard output, exit 0.
    func help(_ topic: String?) throws -> ExitCode {
        guard let topic else {
            writeLine(STDOUT_FILENO, HelpText.overview)
            return .success
        }
        guard let text = HelpText.commands[topic] else {
            throw UsageError("unknown command '\(topic.escapedForMessage)' (see touchgate --help)")
        }
        writeLine(STDOUT_FILENO, "usage: touchgate [options] " + text)
        return .success
    }
}

enum HelpText {
    static let overview = """
        touchgate: the iOS "Touch ID app lock" for terminal sessions, through PAM.

        usage: touchgate [options] <command> [command options]

        commands:
          status                         lock state, counters and sessions
          enable | disable               turn the lock on or off (needs a device-owner success)
          enroll | unenroll              record or remove the biometric enrollment
          auth [--policy P] [--reason T] [--no-interaction] [--session ID]
                                         one evaluation (P: device-owner (default) or biometrics)
          can-evaluate [--policy P]      preflight: never prompts, never counts
          reset                          clear lockout and throttling (passcode, or root)
          config get [KEY] | config set KEY VALUE
          log [--limit N]                the audit trail
          event EVENT [--session ID]     record a lifecycle event
          gate [--session ID] [--lock] [--idle-since EPOCH]
                                         cover and unlock a locked session
          watch [--unit]                 lock every session on suspend and screen lock (logind);
                                         --unit prints its systemd user unit
          tmux-conf | shell-init bash|zsh
                                         integration snippets
          demo                           a walkthrough with a temporary store and demo PAM stacks
          help [COMMAND] | version

        options (before or after the command):
          --store PATH       the store (env TOUCHGATE_STORE; default $XDG_STATE_HOME/touchgate/touchgate.sqlite)
          --store-id ID      only the store with this id (status shows it); a missing one is not created
          --user NAME        whose lock and settings (env TOUCHGATE_USER; default the invoking user)
          --json             one JSON object on standard output
          -S, --stdin        read each answer as one line of standard input
          --pam-confdir DIR  read PAM service files from DIR (env TOUCHGATE_PAM_CONFDIR)
          -h, --help         this help;  --version  the version

        exit codes: 0 success; 1-10 the LAError code negated (1 authenticationFailed, 2 userCancel,
        3 userFallback, 4 systemCancel, 5 passcodeNotSet, 6 biometryNotAvailable, 7 biometryNotEnrolled,
        8 biometryLockout, 9 appCancel, 10 invalidContext); 11 notInteractive; 64 usage; 65 bad value;
        70 internal error; 74 store unreadable, corrupt, insecure, of a newer or foreign schema, or not
        the store --store-id names; 75 a watcher already runs for the user and store (watch).
        """

    static let commands: [String: String] = [
        "status": "status\n\nJSON keys: user, store, storeId, enabled, enrolled, domainState, biometricFailures, biometryLockedOut,\npasscodeFailures, retryAfterSeconds, schemaVersion, sessions [{id, state, locked}], watcher (pid or null).",
        "enable": "enable [--reason TEXT] [--no-interaction] [--session ID]\n\nTurns the lock on after a successful device-owner evaluation; otherwise nothing changes.\nAlready on: success, nothing asked.",
        "disable": "disable [--reason TEXT] [--no-interaction] [--session ID]\n\nTurns the lock off after a successful device-owner evaluation; otherwise nothing changes.\nAlready off: success, nothing asked.",
        "enroll": "enroll [--reason TEXT]\n\nChecks the passcode, then one biometric success, and records the enrollment.",
        "unenroll": "unenroll [--reason TEXT]\n\nRemoves the enrollment after a passcode success.",
        "auth": "auth [--policy device-owner|biometrics] [--reason TEXT] [--no-interaction] [--session ID]\n\nJSON keys: outcome, code, policy, retryAfterSeconds (when throttled).",
        "can-evaluate": "can-evaluate [--policy device-owner|biometrics]\n\nExit 0 when the policy can be evaluated now; otherwise the outcome's exit code.",
        "reset": "reset [--reason TEXT]\n\nClears the biometric lockout and passcode throttling; needs the passcode unless run as root.",
        "config": "config get [KEY] | config set KEY VALUE\n\nkeys: max-biometric-failures (1-100, 5), biometric-tries-per-evaluation (1-10, 3),\npasscode-delays (0,0,0,0,0,60,300,900,3600), grace-seconds (0-86400, 0), reuse-seconds (0-300, 0),\nidle-seconds (0-604800, 0), passcode-service (touchgate), biometric-service (touchgate-biometric; empty: off),\nlog-retention (10-1000000, 1000).\nSettings are per user (--user, TOUCHGATE_USER, else the invoking user). While that user's lock is on,\na change that weakens it needs that user's device-owner success.",
        "log": "log [--limit N]\n\nThe newest N (default 20) audit entries: time, user, session, policy, factor, outcome;\nfor a configuration change also the key, old and new value, and who changed it.",
        "event": "event EVENT [--session ID]\n\nevents: did-finish-launching, will-resign-active, did-enter-background, will-enter-foreground,\ndid-become-active, will-terminate. An event the session's state does not allow exits 65.",
        "gate": "gate [--session ID] [--lock] [--idle-since EPOCH]\n\nExits 0 at once when the session needs no unlock; otherwise covers the terminal and asks until\na success. --lock: a lock request (tmux lock-command). --idle-since: the shell's idle start.",
        "watch": "watch [--unit]\n\nFollows logind on the system bus (DBUS_SYSTEM_BUS_ADDRESS when set): on PrepareForSleep(true)\nand on Lock of one of the user's sessions, every session of the user goes to the background, locked,\nand every tmux server they live in locks its clients, before the sleep delay inhibitor is released.\nNothing it receives unlocks. SIGTERM/SIGINT: exit 0. Exit 75: a watcher already runs for the user\nand store. --unit prints the systemd user unit (touchgate-watch.service).",
        "tmux-conf": "tmux-conf\n\nPrints a snippet for ~/.tmux.conf: lock-command, lock-after-time, hooks.",
        "tmux-hook": "tmux-hook HOOK CLIENT [SESSION]\n\nRun by the hooks from tmux-conf.",
        "shell-init": "shell-init bash|zsh\n\nPrints code for eval that runs the gate before each prompt.",
        "demo": "demo\n\nA walkthrough with a temporary store and demo PAM stacks (pam_matrix).",
        "help": "help [COMMAND]",
        "version": "version",
    ]
}
