import TouchGate
import TouchGateArguments

/// Every command and option of `touchgate`, described once.
///
/// The parser (``CommandLineParser``), `--help` and `help COMMAND`, the usage line of a usage
/// error, the man page (`touchgate help --man`) and the shell completions (`touchgate completions
/// bash|zsh`) are all derived from this table, so they cannot drift apart: a command or option
/// added here is parsed, documented and completed. The engine that derives them is the
/// `TouchGateArguments` module's (``CommandSpecTable``); this is touchgate's declaration.
package enum CommandTable {
    /// The options every command accepts, before or after the command.
    package static let globalOptions: [OptionSpec] = [.store, .storeID, .system, .user, .json, .stdin, .pamConfdir, .help, .version]

    /// The shells `shell-init` and `completions` write code for.
    package static let shells = ["bash", "zsh"]

    /// Every command, in the order help and the man page list them.
    package static let commands: [CommandSpec] = [
        CommandSpec(
            "status", summary: "lock state, counters and sessions",
            details: "Shows the user, the store and its id, whether the lock is on and a biometric factor enrolled, the "
                + "failure counters, throttling, whether the biometric factor is usable now and, if not, why the passcode is "
                + "required, the sessions the store knows and the watcher running for the user and store, "
                + "and each setting whose stored value is weaker than /etc/touchgate.conf allows (the file's is in effect). "
                + "With --system: the ledger's counters for --user NAME (no lock, enrollment, sessions or watcher: the ledger "
                + "has none) and the remote hosts' passcode count, a budget apart from the local keyboard's; an unknown user "
                + "exiting 65; without --user, every user of the ledger with a failure counted (locally or by remote hosts) "
                + "or under a lockdown (LOCK: lockdown, admin or both), when each can try the passcode again, and why the "
                + "passcode is required (PASSCODE REQUIRED).",
            jsonKeys: ["user (when a user is shown: not --system without --user)", "store", "storeId",
                       "enabled (when not --system)", "enrolled (when not --system)", "domainState (when not --system)",
                       "biometricFailures (when a user is shown)", "biometryLockedOut (when a user is shown)",
                       "passcodeFailures (when a user is shown)", "retryAfterSeconds (when a user is shown)",
                       "passcodeRequired (when a user is shown: null when the finger is usable, else restart, idle, age, lockdown, adminLock or failures)",
                       "attemptsLeft (when a user is shown: {biometric, passcode}, wrong tries left before the lockout or the next wait; null: none)",
                       "passcodeDelaySeconds (when a user is shown: the wait after those passcode tries)", "schemaVersion",
                       "sessions (when not --system: [{id, state, locked}])", "watcher (when not --system: pid or null)",
                       "systemPolicy (when a stored value is weaker than /etc/touchgate.conf allows: {file, overridden: {KEY: stored value}})",
                       "remotePasscodeFailures (when --system with a user: remote hosts' passcode failures, a budget of their own)",
                       "remoteRetryAfterSeconds (when --system with a user: the remote hosts' wait, or null)",
                       "users (when --system without --user: [{user, biometricFailures, biometryLockedOut, passcodeFailures, "
                        + "retryAfterSeconds, retryAt, remotePasscodeFailures, remoteRetryAfterSeconds, lockdown, adminLock, "
                        + "passcodeRequired}], each user with a failure counted, locally or by remote hosts, or a lockdown)"],
            exits: [.badValue, .store]
        ) { _ throws(UsageError) in .status },
        CommandSpec(
            "enable", summary: "turn the lock on (after a device-owner success)",
            details: "Turns the lock on after a successful device-owner evaluation; on any other outcome nothing changes "
                + "and the exit status is that outcome's. When the lock already is on: a success, nothing asked.",
            options: OptionSpec.evaluating, jsonKeys: ["outcome", "code", "policy", "message", "enabled"], exits: [.outcome, .store]
        ) { line throws(UsageError) in .enable(try line.evaluation()) },
        CommandSpec(
            "disable", summary: "turn the lock off (after a device-owner success)",
            details: "Turns the lock off after a successful device-owner evaluation; on any other outcome nothing changes "
                + "and the exit status is that outcome's. When the lock already is off: a success, nothing asked.",
            options: OptionSpec.evaluating, jsonKeys: ["outcome", "code", "policy", "message", "enabled"], exits: [.outcome, .store]
        ) { line throws(UsageError) in .disable(try line.evaluation()) },
        CommandSpec(
            "enroll", summary: "record the biometric enrollment",
            details: "Checks the passcode, then one biometric success, records the enrollment and changes domainState.",
            options: OptionSpec.evaluating, jsonKeys: ["outcome", "code", "policy", "message", "enrolled"], exits: [.outcome, .store]
        ) { line throws(UsageError) in .enroll(try line.evaluation()) },
        CommandSpec(
            "unenroll", summary: "remove the biometric enrollment",
            details: "Removes the enrollment after a passcode success.",
            options: OptionSpec.evaluating, jsonKeys: ["outcome", "code", "policy", "message", "enrolled"], exits: [.outcome, .store]
        ) { line throws(UsageError) in .unenroll(try line.evaluation()) },
        CommandSpec(
            "auth", summary: "one evaluation",
            details: "Runs one evaluation of the policy (default device-owner: the biometric factor first, then the "
                + "passcode; biometrics: the biometric factor only). The exit status is the outcome's.",
            options: [.policy] + OptionSpec.evaluating,
            jsonKeys: ["outcome (success or the outcome's name)", "code", "policy",
                       "message (the sentence shown without --json)", "retryAfterSeconds (when throttled)",
                       "passcodeRequired (when biometryLockout: restart, idle, age, lockdown, adminLock or failures)",
                       "attemptsLeft ({biometric, passcode}, as status)", "passcodeDelaySeconds"],
            exits: [.outcome, .store]
        ) { line throws(UsageError) in .auth(try line.evaluation()) },
        CommandSpec(
            "can-evaluate", summary: "preflight: never prompts, never counts",
            details: "Says whether the policy could be evaluated now: exit 0 when it can, else the exit status of the "
                + "outcome an evaluation would end in. Never prompts and never counts a try.",
            options: [.policy, .session],
            jsonKeys: ["outcome", "code", "policy", "message", "passcodeRequired (when biometryLockout: as auth)"], exits: [.outcome, .store]
        ) { line throws(UsageError) in .canEvaluate(try line.evaluation()) },
        CommandSpec(
            "reset", summary: "clear lockout and throttling (passcode, or root)",
            details: "Clears the biometric lockout and the passcode throttling; needs a passcode success unless run as root. "
                + "The audit entry names who ran it: the invoking user and, for an administrator's reset (--system, or "
                + "root on another user's store), the login uid and SUDO_USER. With --system, an unknown --user exits 65.",
            options: OptionSpec.evaluating, jsonKeys: ["outcome", "code", "policy", "message"], exits: [.outcome, .badValue, .store]
        ) { line throws(UsageError) in .reset(try line.evaluation()) },
        CommandSpec(
            "lockdown", summary: "biometric factor off until the next passcode",
            details: "Turns the biometric factor off until the next passcode success, as iOS's Lockdown: every evaluation "
                + "asks for the passcode (biometrics ends with biometryLockout, passcodeRequired lockdown). Needs no "
                + "authentication: it only makes the lock stricter. With --system --user NAME: an administrator's lock "
                + "in the ledger (the PAM module's; passcodeRequired adminLock); as root with --user NAME alone, the same "
                + "lock in that user's own store. With --system, an unknown --user exits 65.",
            jsonKeys: ["user", "store", "passcodeRequired (lockdown or adminLock)"],
            exits: [.badValue, .store]
        ) { _ throws(UsageError) in .lockdown },
        CommandSpec(
            "config get", summary: "show one user's settings",
            details: "Prints the settings of one user (--user, else TOUCHGATE_USER, else the invoking user): a first "
                + "line '# settings of user NAME', then KEY=VALUE lines; with KEY, the value alone. The values are those in "
                + "effect: where the store holds one weaker than /etc/touchgate.conf allows, the file's, and a last '# ' line "
                + "says so (with KEY, on standard error). An unknown key exits 65.",
            arguments: [ArgumentSpec("KEY", optional: true, values: .configKeys)],
            jsonKeys: ["user", "KEY: VALUE for each key (numbers as numbers, passcode-delays an array)",
                       "systemPolicy (when a stored value is weaker than /etc/touchgate.conf allows: {file, overridden: {KEY: stored value}})"],
            exits: [.badValue, .store]
        ) { line throws(UsageError) in .configGet(key: try line.arguments.first.map(configKey)) },
        CommandSpec(
            "config set", summary: "change one user's setting",
            details: "Changes one setting of one user. A bad value exits 65 and changes nothing, and so does a value weaker "
                + "than /etc/touchgate.conf allows (the message names the file and the key). While that user's lock "
                + "is on, a change that weakens it needs that user's device-owner success first.",
            arguments: [ArgumentSpec("KEY", values: .configKeys), ArgumentSpec("VALUE")],
            options: OptionSpec.evaluating,
            jsonKeys: ["user", "KEY: VALUE for each key"], exits: [.outcome, .badValue, .store]
        ) { line throws(UsageError) in
            .configSet(key: try configKey(line.arguments[0]), value: line.arguments[1], try line.evaluation())
        },
        CommandSpec(
            "log", summary: "the audit trail",
            details: "The newest N audit entries: time, user, session, policy, factor, outcome; for a configuration "
                + "change (factor config, outcome 'setting changed') also KEY: 'OLD' -> 'NEW' by ACTOR, the user whose "
                + "setting it is and the invoking user who changed it; for a reset, counters: the failures it cleared, by "
                + "who ran it (an administrator with their login uid and SUDO_USER). Never a secret.",
            options: [.limit],
            jsonKeys: ["entries ([{id, time, user, session, policy, factor, outcome, code, change}]; "
                + "change: {key, old, new, by} or null)"],
            exits: [.badValue, .store]
        ) { line throws(UsageError) in
            let text = line.value(.limit) ?? "20"
            guard let limit = Int(text), (1...100_000).contains(limit) else {
                throw UsageError("invalid value '\(text.escapedForMessage)' for --limit: expected a whole number from 1 to 100000",
                                 exitCode: .badValue)
            }
            return .log(limit: limit)
        },
        CommandSpec(
            "event", summary: "record a lifecycle event",
            details: "Records a lifecycle event of the session. An unknown event, or one the session's state does not "
                + "allow, exits 65 and changes nothing.",
            arguments: [ArgumentSpec("EVENT", values: .events)], options: [.session],
            jsonKeys: ["session", "event", "state", "locked"], exits: [.badValue, .store]
        ) { line throws(UsageError) in
            let name = line.arguments[0]
            guard let event = LifecycleEvent(rawValue: name) else {
                throw UsageError("unknown event '\(name.escapedForMessage)': expected one of "
                    + LifecycleEvent.allCases.map(\.rawValue).joined(separator: ", "), exitCode: .badValue)
            }
            return .event(event, session: line.value(.session))
        },
        CommandSpec(
            "gate", summary: "cover and unlock a locked session",
            details: "Exits 0 at once when the session needs no unlock (the fast path); otherwise covers the terminal "
                + "and asks until a success, then unlocks the session. Run by the tmux and shell integrations.",
            options: [.session, .lock, .idleSince, .tmuxSocket, .cancelable], exits: [.outcome, .badValue, .store]
        ) { line throws(UsageError) in
            var gate = GateOptions()
            gate.session = line.value(.session)
            gate.lockRequest = line.has(.lock)
            gate.cancelable = line.has(.cancelable)
            if let socket = line.value(.tmuxSocket) {
                guard socket.hasPrefix("/") else {
                    throw UsageError("invalid value '\(socket.escapedForMessage)' for --tmux-socket: expected an absolute path",
                                     exitCode: .badValue)
                }
                gate.tmuxSocket = socket
            }
            if let text = line.value(.idleSince) {
                guard let since = Double(text), since.isFinite, since >= 0 else {
                    throw UsageError("invalid value '\(text.escapedForMessage)' for --idle-since: expected seconds since 1970",
                                     exitCode: .badValue)
                }
                gate.idleSince = since
            }
            return .gate(gate)
        },
        CommandSpec(
            "watch", summary: "lock every session on suspend and screen lock (logind)",
            details: "Follows logind on the system bus: on suspend (PrepareForSleep) and on a screen lock (Lock) every "
                + "session of the user goes to the background, locked, and every tmux server they live in locks its "
                + "clients, before the sleep delay inhibitor is released. Nothing it receives unlocks. SIGTERM, SIGINT "
                + "or SIGHUP: exit 0.",
            options: [.unit], exits: [.watcherMissing, .store, .watcherRunning]
        ) { line throws(UsageError) in .watch(unit: line.has(.unit)) },
        CommandSpec(
            "lock", summary: "lock and cover every session now, or one",
            details: "Locks every session of the user at once, as touchgate watch does at a screen lock: each goes to the "
                + "background, locked (whatever grace-seconds says), a waiting prompt ends, every touchgate shell covers "
                + "its terminal and every tmux server of the user locks its clients. Returns once each owner answered "
                + "that its cover is up and each tmux server took the lock. With SESSION only that session is locked "
                + "(its owners, its tmux session); an unknown SESSION, or one not running, exits 65. An owner that did "
                + "not confirm its cover is said on standard error and exits 69.",
            arguments: [ArgumentSpec("SESSION", optional: true)],
            jsonKeys: ["sessions ([{session, state, locked}])", "owners ([pid]: the owners that confirmed their cover)",
                       "unconfirmedOwners ([pid])", "tmuxSockets ([path])"],
            exits: [.badValue, .watcherMissing, .store]
        ) { line throws(UsageError) in .lock(session: line.arguments.first) },
        CommandSpec(
            "tmux-conf", summary: "print the tmux integration snippet",
            details: "Prints a snippet for ~/.tmux.conf: focus events, the idle lock, the lock-command and the hooks. "
                + "It starts with comment lines naming the options it baked in (--store, --store-id, --user, --pam-confdir).",
            exits: [.store]
        ) { _ throws(UsageError) in .tmuxConf },
        CommandSpec(
            "tmux-hook", summary: "what the tmux hooks run",
            details: "Run by the hooks from tmux-conf; not for typing by hand.",
            arguments: [ArgumentSpec("HOOK", values: .tmuxHooks), ArgumentSpec("CLIENT"), ArgumentSpec("SESSION", optional: true)],
            exits: [.badValue, .store]
        ) { line throws(UsageError) in
            guard let hook = TmuxHook(rawValue: line.arguments[0]) else {
                throw UsageError("unknown tmux hook '\(line.arguments[0].escapedForMessage)'", exitCode: .badValue)
            }
            return .tmuxHook(hook, client: line.arguments[1], session: line.arguments.count > 2 ? line.arguments[2] : nil)
        },
        CommandSpec(
            "shell", summary: "hold the terminal and run the shell under the lock",
            details: "Holds the terminal and runs PROGRAM (default: the user's shell) on a pseudo-terminal of its own, "
                + "relaying keys and output. A new session asks first while the lock is on; when the session locks "
                + "(idle-seconds with no key, touchgate watch, a lifecycle event for it) no key reaches the program and "
                + "none of its output reaches the screen until the gate's unlock, then its screen is drawn back. Focus "
                + "reports drive will-resign-active and did-become-active; a hang-up ends the program. The exit status is "
                + "the program's. Inside tmux, inside another touchgate shell, without a terminal, or with a terminal that "
                + "is not its controlling terminal (su USER -c CMD) it runs the program directly. A gate that cannot unlock "
                + "(11 notInteractive, 64, 65, 74, 126 or 127: running it again would end the same; or five in a row ending "
                + "within 2 s) is not run again: "
                + "the program is hung up and the owner ends with the gate's status and one line; Ctrl-C at a gate before "
                + "the program started ends the owner with 2 (userCancel). An owner whose channel cannot be set up (no private "
                + "directory for it) does not start (69).",
            arguments: [ArgumentSpec("PROGRAM ARGS", optional: true, values: .none, rest: true)],
            exits: [.outcome, .badValue, .watcherMissing, .store]
        ) { line throws(UsageError) in .shell(program: line.arguments) },
        CommandSpec(
            "shell-init", summary: "print the bash or zsh rc-file line that starts touchgate shell",
            details: "Prints lines for the top of the shell's rc file that start the interactive shell under touchgate shell "
                + "(outside tmux, outside an owner); no shell hook gates a prompt. "
                + "It starts with comment lines naming the options it baked in.",
            arguments: [ArgumentSpec("SHELL", values: .shells)], exits: [.badValue, .store]
        ) { line throws(UsageError) in .shellInit(shell: try shell(line.arguments[0])) },
        CommandSpec(
            "completions", summary: "print the bash or zsh completion script",
            details: "Prints the completion script for the shell: commands, options, config keys, event names, "
                + "policies. The same as the installed completions/touchgate.bash and completions/_touchgate.",
            arguments: [ArgumentSpec("SHELL", values: .shells)], exits: [.badValue]
        ) { line throws(UsageError) in .completions(shell: try shell(line.arguments[0])) },
        CommandSpec(
            "test-world create", summary: "make a private PAM world for tests in DIR",
            details: "Makes DIR (new, or empty) a private PAM world for lockout tests: pam_matrix stacks for the "
                + "touchgate and touchgate-biometric services, read through pam_start_confdir (no root, nothing under "
                + "/etc), for one user (--user, default alice) whose passcode is USER-passcode and whose biometric secret "
                + "is USER-finger, and the path of a store beside them. Prints the environment to use, as export lines "
                + "for eval \"$(touchgate test-world create DIR)\". Needs pam_matrix.so (libpam-wrapper).",
            arguments: [ArgumentSpec("DIR")],
            jsonKeys: ["directory", "environment ({TOUCHGATE_PAM_CONFDIR, TOUCHGATE_STORE, TOUCHGATE_USER})", "user",
                       "passcode", "finger"],
            exits: [.badValue, .watcherMissing, .internalError]
        ) { line throws(UsageError) in .testWorldCreate(directory: line.arguments[0]) },
        CommandSpec(
            "test-world remove", summary: "delete a world test-world create made",
            details: "Deletes DIR and everything in it (the store included), only when test-world create made it "
                + "(its touchgate-testing-world file); any other directory is left as it is, exit 65.",
            arguments: [ArgumentSpec("DIR")], exits: [.badValue, .watcherMissing]
        ) { line throws(UsageError) in .testWorldRemove(directory: line.arguments[0]) },
        CommandSpec(
            "test-world sensor", summary: "run a simulated fingerprint sensor in DIR until stopped",
            details: "Starts a private system bus, polkit answered by python3-dbusmock and a real fprintd with libfprint's "
                + "virtual device in DIR (an existing directory), enrolls the finger id 'good' for --user (default "
                + "alice) with fprintd-enroll, prints export lines for DBUS_SYSTEM_BUS_ADDRESS and "
                + "TOUCHGATE_SENSOR_SOCKET and then 'ready', and runs until SIGTERM, SIGINT or SIGHUP, when it stops "
                + "them all. A pam_fprintd.so max-tries=1 stack then reaches it; 'test-world scan' touches it.",
            arguments: [ArgumentSpec("DIR")], exits: [.watcherMissing, .internalError]
        ) { line throws(UsageError) in .testWorldSensor(directory: line.arguments[0]) },
        CommandSpec(
            "test-world scan", summary: "send a command to the simulated sensor in DIR",
            details: "Sends COMMAND to the virtual device of the sensor 'test-world sensor DIR' runs: 'SCAN good' (the "
                + "enrolled finger), 'SCAN other' (a finger that does not match), 'ERROR 0' (the device fails). It "
                + "waits up to 20 s for the device to listen (it does only while fprintd verifies or enrolls).",
            arguments: [ArgumentSpec("DIR"), ArgumentSpec("COMMAND")], exits: [.watcherMissing, .internalError]
        ) { line throws(UsageError) in .testWorldScan(directory: line.arguments[0], command: line.arguments[1]) },
        CommandSpec(
            "demo", summary: "a walkthrough with a temporary store and demo PAM stacks",
            details: "A walkthrough against real PAM (pam_matrix stacks written to a temporary directory, with demo "
                + "secrets it prints) and a temporary store. It runs in touchgate-demo (beside touchgate, else in "
                + "../libexec/touchgate/), which carries the test kit the demo and test-world need; touchgate does not.",
            exits: [.outcome, .watcherMissing]
        ) { _ throws(UsageError) in .demo },
        CommandSpec(
            "help", summary: "this help, or one command's",
            details: "Prints the overview, or the usage, options, JSON keys and exit codes of one command, on standard "
                + "output. With --man, the manual page touchgate(1) in roff.",
            arguments: [ArgumentSpec("COMMAND", optional: true, values: .commands)], options: [.man]
        ) { line throws(UsageError) in
            if line.has(.man) {
                guard line.arguments.isEmpty else {
                    throw UsageError("help: unexpected argument '\(line.arguments[0].escapedForMessage)' with --man",
                                     usage: table.usageLine(of: "help"))
                }
                return .manPage
            }
            return .help(topic: try line.arguments.first.map(helpTopic))
        },
        CommandSpec(
            "version", summary: "the version and the SQLite release it runs",
            details: "The version, and the SQLite release it runs (linked in, or the shared library).",
            jsonKeys: ["version", "sqlite", "sqliteLibrary (null: linked in)"]
        ) { _ throws(UsageError) in .version },
    ]

    /// The exit statuses, in order, with their meanings (the man page's EXIT STATUS).
    package static let exitStatuses: [ExitStatusSpec] = [
        ExitStatusSpec(.success, .success, "success", "success"),
        ExitStatusSpec(.outcome, ExitCode(.authenticationFailed), through: .notInteractive, "the outcome of the evaluation",
            "the outcome of an evaluation: the LAError code negated (1 authenticationFailed, "
            + "2 userCancel, 3 userFallback, 4 systemCancel, 5 passcodeNotSet, 6 biometryNotAvailable, 7 biometryNotEnrolled, "
            + "8 biometryLockout, 9 appCancel, 10 invalidContext), 11 notInteractive"),
        ExitStatusSpec(.usage, .usage, "usage error", "usage error: an unknown command or option, a missing or extra argument"),
        ExitStatusSpec(.badValue, .badValue, "bad value", "bad value: a config value, an unknown config key or event, an event the session's "
            + "state does not allow, a value weaker than /etc/touchgate.conf allows, a --user the ledger does not know (--system), "
            + "an unknown session (lock)"),
        ExitStatusSpec(.watcherMissing, .unavailable, "unavailable",
                       "(watch) the touchgate-watch executable is neither beside touchgate nor in ../libexec/touchgate/; "
                       + "(demo, test-world) the touchgate-demo executable is in neither place; "
                       + "(shell) the owner's channel cannot be set up (no private directory for it): the shell does not start; "
                       + "(lock) an owner did not confirm its cover"),
        ExitStatusSpec(.internalError, .internalError, "internal error",
                       "internal error: a bug, among them an error the store's code did not expect (the store is not "
                       + "the cause, so the gate does not go offline on it: the session stays locked)"),
        ExitStatusSpec(.store, .store, "the store cannot be used", "the store cannot be used: unreadable, not a database, damaged, insecure, of a newer "
            + "or foreign schema, or not the store --store-id names; or (status, config) /etc/touchgate.conf cannot be used: "
            + "not root's, writable by others, unreadable or malformed"),
        ExitStatusSpec(.watcherRunning, .watcherRunning, "a watcher already runs", "(watch) a watcher already runs for the user and store"),
    ]

    /// The table the engine parses against and renders help, the man page and the completions from.
    package static let table = CommandSpecTable<Command>(
        program: "touchgate", abstract: "the iOS \"Touch ID app lock\" for terminal sessions, through PAM",
        commands: commands, globalOptions: globalOptions, allOptions: allOptions, exitStatuses: exitStatuses,
        everyCommandExits: [.success, .usage, .internalError],
        help: (.help, { topic in .help(topic: topic) }), version: (.version, .version))

    /// Every option of the table, global ones first, once each (`CommandTableTests` checks that
    /// every command's options are here: a literal list, so parsing does not walk the commands).
    package static let allOptions: [OptionSpec] = globalOptions
        + [.reason, .noInteraction, .session, .policy, .limit, .lock, .idleSince, .tmuxSocket, .cancelable, .unit, .man]

    // MARK: - Argument checks shared by the builders

    private static func configKey(_ name: String) throws(UsageError) -> Configuration.Key {
        guard let key = Configuration.Key(rawValue: name) else {
            throw UsageError("unknown config key '\(name.escapedForMessage)': expected one of "
                + Configuration.Key.allCases.map(\.rawValue).joined(separator: ", "), exitCode: .badValue)
        }
        return key
    }

    private static func shell(_ name: String) throws(UsageError) -> String {
        guard shells.contains(name) else {
            throw UsageError("unsupported shell '\(name.escapedForMessage)': expected bash or zsh", exitCode: .badValue)
        }
        return name
    }

    private static func helpTopic(_ name: String) throws(UsageError) -> String {
        guard !table.commands(matching: name).isEmpty else {
            throw UsageError("help: unknown command '\(name.escapedForMessage)' (see touchgate --help)",
                             usage: table.usageLine(of: "help"))
        }
        return name
    }
}
