import Glibc
import TouchGate

extension Runner {
    /// What the generated snippets carry (see ``SnippetBake``): the global options of the
    /// command line or of the environment `tmux-conf` or `shell-init` runs in, fixed from then on.
    /// The store path is baked from the root, so every hook reads the same file wherever it runs.
    ///
    /// The snippets name the store they were made for by its id: one deleted, moved or replaced
    /// later is damage (the gate then asks for the passcode), not a new store with the lock off.
    /// Reading that id opens the store, making it if it is missing; both that and a store that
    /// cannot be read (the snippet then carries no id) are said on standard error and in the
    /// snippet's comment.
    func bakeSnippet() -> SnippetBake {
        var bake = SnippetBake(executable: executablePath())
        func take(_ option: String, _ given: String?, _ variable: String) {
            if let given {
                bake.options.append((option, given, option))
            } else if let value = environment[variable] {
                bake.options.append((option, value, variable))
            }
        }
        // As ``storePath`` resolves it: an empty value means the default store.
        if let path = invocation.storePath ?? environment["TOUCHGATE_STORE"], !path.isEmpty {
            bake.options.append(("--store", absolutePath(path), invocation.storePath == nil ? "TOUCHGATE_STORE" : "--store"))
        }
        if let id = invocation.storeID {
            bake.options.append(("--store-id", id, "--store-id"))
        } else {
            do {
                let store = try Store(path: absolutePath(try storePath))
                bake.options.append(("--store-id", try store.storeID(), "the store's own id"))
                bake.madeStore = store.createdByThisProcess
                if let notice = newStoreNotice(store, forSnippet: true) { printError(notice) }
            } catch {
                // A StoreError prints as its description.
                bake.storeProblem = "\(error)"
                printError("the snippet carries no store id: \(error)")
            }
        }
        take("--user", invocation.user, "TOUCHGATE_USER")
        take("--pam-confdir", invocation.pamConfigurationDirectory, "TOUCHGATE_PAM_CONFDIR")
        return bake
    }

    /// The path of the store the snippets' commands read, from the root, as it resolves where
    /// they are generated (exported to the session as `TOUCHGATE_HOOK_STORE`, see ``openStore()``).
    var hookStorePath: String? { (try? storePath).map(absolutePath) }

    /// The shell command tmux's lock-command runs: the gate, again and again until it reports an
    /// unlock (exit 0), because tmux shows the session whenever its lock-command exits, however
    /// the gate ended (SIGTERM, SIGKILL, a crash). It stops only when the client's terminal is gone
    /// (it can no longer be opened after a hang-up): then no one is there to see the session.
    /// Between two gates it covers the screen again, says why, and pauses a second, so a gate that
    /// fails at once does not spin.
    ///
    /// The shell ignores SIGINT, SIGQUIT and SIGTSTP, and each gate inherits that, so a key held
    /// down while the lock starts cannot end it before it takes the terminal.
    func lockCommand(_ touchgate: String, session: String?) -> String {
        var gate = "\(touchgate) gate --lock"
        if let session { gate += " --session " + session }
        return "trap '' INT QUIT TSTP; until \(gate); do s=$?; { true </dev/tty; } 2>/dev/null || exit 4; "
            + "printf '\(Self.recoverText)' \"$s\" >/dev/tty 2>/dev/null; sleep 1; done"
    }

    /// The `printf` format the integrations write to the terminal between two gates (`%s` is the
    /// exit status of the gate that ended): the alternate screen, cleared, and one line.
    static let recoverText = "\\033[?1049h\\033[H\\033[2J\\033[3Jtouchgate: the gate ended without an unlock (exit %s); it starts again.\\r\\n"

    /// `touchgate tmux-conf`: a snippet for `~/.tmux.conf`.
    ///
    /// tmux unlocks a client as soon as its lock-command exits and shows whatever it was showing,
    /// so the lock must be in place before tmux first draws a session for a client. Every way a
    /// client gets a session (attach, new-session, switch-client) fires client-session-changed,
    /// whose hook runs inside the server, before the next redraw and before the client's keys are
    /// read: it names the session in its lock-command (`set-option -F` expands the server pid and
    /// session id) and locks the client at once; the gate then decides, and exits at once when
    /// the session may be shown. Only then does `touchgate tmux-hook` record the events.
    func tmuxConf() -> ExitCode {
        let bake = bakeSnippet()
        // run-shell and set-option -F expand formats: a '#' of our own must be doubled.
        let command = bake.command.replacingEvery("#", with: "##")
        func runShell(_ name: String, _ arguments: String, background: Bool = false) -> String {
            "run-shell " + (background ? "-b " : "") + tmuxQuoted("\(command) tmux-hook \(name) \(arguments)")
        }
        // One array entry per command: a command that fails skips the rest of its own list only,
        // so nothing can stand between a client and its lock.
        func hook(_ name: String, _ commands: [String]) -> String {
            commands.enumerated().map { index, command in
                "set-hook -g \(name)[\(index)] " + tmuxQuoted(command)
            }.joined(separator: "\n")
        }
        // Single quotes keep the shell from touching the '$' of a tmux session id.
        let sessionLock = lockCommand(command, session: "'tmux-#{pid}-#{session_id}'")
        // tmux never runs lock-command for a control-mode client (`tmux -C`): it has no terminal
        // of its own to run it in. Such a client stays attached only while the lock is known to
        // be off; any other answer (on, or the store unreadable) detaches it.
        let controlCheck = "if-shell -F '#{client_control_mode}' " + tmuxQuoted("run-shell " + tmuxQuoted(
            "\(command) --json status 2>/dev/null | grep -q '\"enabled\":false' || tmux detach-client -t '#{client_name}'"))
        let text = """
            # touchgate: lock tmux sessions when you come back to them.
            # Generated by `touchgate tmux-conf`; source it from ~/.tmux.conf.
            \(bake.comment(generatedBy: ["tmux-conf"]))
            #
            # Focus events let client-focus-in/out reach touchgate (will-resign-active / did-become-active);
            # the outer terminal must report focus for them to fire.
            set -g focus-events on
            \(hookStorePath.map { "# Commands typed in its panes name a new store they make elsewhere.\nset-environment -g TOUCHGATE_HOOK_STORE " + tmuxQuoted($0) } ?? "")
            # Lock after 15 idle minutes (0 turns the idle lock off). The lock runs the gate.
            set -g lock-after-time 900
            # The fallback lock-command; a session gets its own, naming it, whenever a client gets it.
            set -g lock-command \(tmuxQuoted(lockCommand(bake.command, session: nil)))
            # In the background: a blocking run-shell here would hold back client-session-changed's lock
            # while tmux draws the new session's client (a grouped session, new -t, shows shared windows).
            \(hook("session-created", [runShell("session-created", "'#{client_name}' '#{session_id}'", background: true)]))
            # Attach, new-session and switch-client: lock the client before it shows anything; the gate decides.
            # A control-mode client (tmux -C) cannot be locked: it is detached unless the lock is off.
            \(hook("client-session-changed", [
                "set-option -F lock-command " + tmuxQuoted(sessionLock), "lock-client",
                runShell("client-session-changed", "'#{client_name}' '#{session_id}'"), controlCheck,
            ]))
            \(hook("client-detached", [runShell("client-detached", "'#{hook_client}'")]))
            \(hook("client-focus-in", [runShell("client-focus-in", "'#{client_name}' '#{session_id}'")]))
            \(hook("client-focus-out", [runShell("client-focus-out", "'#{client_name}' '#{session_id}'")]))
            """
        writeLine(STDOUT_FILENO, text)
        return .success
    }

    /// What the hooks from ``tmuxConf()`` run: the lifecycle events of the sessions a client
    /// leaves and enters. The lock itself is taken by the hook inside tmux, before this runs.
    func tmuxHook(_ hook: TmuxHook, client: String, session tmuxSession: String?) throws -> ExitCode {
        let store = try openStore()
        let name = try user
        // $TMUX is SOCKET,PID,SESSION: the server's pid names the sessions, and its socket is what
        // `touchgate watch` locks the clients through.
        let tmux = environment["TMUX"].map { $0.split(separator: ",", omittingEmptySubsequences: false) } ?? []
        let server = tmux.dropFirst().first
        func sessionID(_ tmuxID: String) -> String { "tmux-\(server ?? "0")-\(tmuxID)" }
        let socket = tmux.first.map(String.init).flatMap { $0.hasPrefix("/") ? $0 : nil }
        // Hooks fire in orders iOS never produces (a detach straight from active): an event the
        // state does not allow is skipped, never forced, so no hook can unlock anything.
        func apply(_ events: [LifecycleEvent], _ id: String) throws {
            for event in events {
                do { try self.apply(event, session: id, store: store, user: name) } catch is SessionLifecycle.InvalidTransition {}
            }
        }
        switch hook {
        case .sessionCreated:
            guard let tmuxSession else { throw UsageError("usage: touchgate tmux-hook session-created CLIENT SESSION") }
            try apply([.didFinishLaunching, .didBecomeActive], sessionID(tmuxSession))
            if let socket { try store.recordTmuxSocket(socket, session: sessionID(tmuxSession)) }
            if !client.isEmpty { try store.attachClient(client, to: sessionID(tmuxSession)) }
        case .clientSessionChanged:
            guard let tmuxSession else { throw UsageError("usage: touchgate tmux-hook \(hook.rawValue) CLIENT SESSION") }
            let id = sessionID(tmuxSession)
            // A session the store never saw (it began before the snippet was loaded): launched
            // now, as session-created would have (locked while the lock is on), with its socket.
            if try store.session(id) == nil { try apply([.didFinishLaunching, .didBecomeActive], id) }
            let previous = try store.detachClient(client)
            try store.attachClient(client, to: id)
            if let socket { try store.recordTmuxSocket(socket, session: id) }
            guard previous != id else { break }
            // Switching away sends the session left behind to the background, as a detach does.
            if let previous { try apply([.willResignActive, .didEnterBackground], previous) }
            try apply([.willEnterForeground], id)
        case .clientDetached:
            if let id = try store.detachClient(client) {
                try apply([.willResignActive, .didEnterBackground], id)
            }
        case .clientFocusIn:
            if let tmuxSession { try apply([.didBecomeActive], sessionID(tmuxSession)) }
        case .clientFocusOut:
            if let tmuxSession { try apply([.willResignActive], sessionID(tmuxSession)) }
        }
        return .success
    }

    /// Locks every client of tmux session `id` (`tmux-<server pid>-$<n>`) once a gate found it
    /// locked, so a lock that one client or one pane met (a pane's idle time, a `lock-client`)
    /// covers every terminal that shows the session: `tmux lock-session`, through the socket the
    /// store recorded for it, else the one `$TMUX` names when it is this session's. A client
    /// that is locked already is left as it is, so this is safe to repeat. The server gets 2 s to
    /// answer; nothing it says reaches the terminal.
    func lockTmuxClients(of id: String, store: Store) {
        guard id.hasPrefix("tmux-"), let dollar = id.lastIndex(of: "$") else { return }
        let target = String(id[dollar...])
        let fromTMUX = environment["TMUX"].flatMap { value -> String? in
            guard tmuxSessionID(value) == id, let socket = value.split(separator: ",").first else { return nil }
            return String(socket)
        }
        guard let socket = ((try? store.session(id))?.flatMap(\.tmuxSocket)) ?? fromTMUX, socket.hasPrefix("/") else { return }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
        }
        var argv: [UnsafeMutablePointer<CChar>?] = (["tmux", "-S", socket, "lock-session", "-t", target] as [String]).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawnp(&pid, "tmux", &actions, nil, &argv, environ) == 0 else { return }
        var status: Int32 = 0
        for _ in 0..<2_000 {
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid || (waited < 0 && errno != EINTR) { return }
            usleep(1_000)
        }
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    }

    /// `touchgate shell-init bash|zsh`: code for `eval` that gates every prompt.
    ///
    /// Every shell gets a session of its own (`shell-<pid>-<random>`), so nothing an earlier shell
    /// on the same terminal left in the store can apply to it. The gate runs in a loop until it
    /// reports an unlock; the hooks compose with the user's own traps, `PROMPT_COMMAND` and zsh
    /// hook arrays instead of replacing them.
    func shellInit(_ shell: String) -> ExitCode {
        let bake = bakeSnippet()
        // Nothing interrupts the loading: Ctrl-C held while a shell starts would otherwise abandon
        // the snippet half-way, leaving a shell without its hooks. SIGINT and SIGQUIT (and in bash
        // SIGTSTP) are ignored from its first instruction to its last, then the user's own
        // dispositions come back; only then is it marked loaded. (zsh: an anonymous function with
        // local traps, as `trap` cannot be read back from a command substitution there; it keeps
        // job control, so it leaves SIGTSTP alone: a Ctrl-Z only stops a command the snippet runs,
        // and the loading goes on.)
        let loadOpen = shell == "zsh" ? """
            # Ctrl-C and Ctrl-\\ cannot cut the loading short (a shell without its hooks).
            () {
            setopt localoptions localtraps nowarncreateglobal
            trap '' INT QUIT
            """ : """
            # Ctrl-C, Ctrl-\\ and Ctrl-Z cannot cut the loading short (a shell without its hooks).
            __touchgate_load_traps=$(trap -p INT QUIT TSTP)
            trap '' INT QUIT TSTP
            """
        let loadClose = shell == "zsh" ? """
            __touchgate_loaded=1
            }
            """ : """
            trap - INT QUIT TSTP
            eval "$__touchgate_load_traps"
            unset __touchgate_load_traps
            __touchgate_loaded=1
            """
        let common = """
            # touchgate shell integration, generated by `touchgate shell-init \(shell)`.
            # Load it last in the rc file: it adds to the traps and prompt hooks it finds there.
            \(bake.comment(generatedBy: ["shell-init", shell]))
            #
            # Before each prompt, and before each command line typed at it, the gate runs (its fast
            # path when the session may be shown). A command typed after idle-seconds or more at the
            # prompt (the store's setting; 0 is off) counts as a return from the background.
            # The gate runs until it reports an unlock (exit 0): a gate that is killed or fails
            # starts again, and only a terminal that is gone (hung up) ends the loop.
            if [ -z "${__touchgate_loaded-}" ]; then
            \(loadOpen)
            # This shell's session: TOUCHGATE_SESSION when set; inside tmux the tmux session (the
            # touchgate default, from $TMUX), whose lifecycle the tmux hooks own; else a new id for
            # this shell alone, so that a row an earlier shell on this terminal left behind (it
            # ended without its exit hook: exec, SIGKILL, a crash) never applies to it.
            __touchgate_session=()
            __touchgate_owner=1
            if [ -n "${TOUCHGATE_SESSION-}" ]; then
                __touchgate_session=(--session "$TOUCHGATE_SESSION")
            elif [ -n "${TMUX-}" ]; then
                __touchgate_owner=
            else
                __touchgate_random=$(od -An -N8 -tx1 /dev/urandom 2>/dev/null | tr -d ' \\n')
                __touchgate_session=(--session "shell-$$-${__touchgate_random:-$RANDOM$RANDOM$RANDOM}")
                unset __touchgate_random
            fi
            __touchgate() { \(bake.command) "$@" "${__touchgate_session[@]}"; }
            # The store these hooks read: a touchgate command typed here that makes a new store
            # elsewhere (another TOUCHGATE_STORE) says so.
            \(hookStorePath.map { "export TOUCHGATE_HOOK_STORE=" + shellQuoted($0) } ?? "")
            # When the prompt was shown after a passed gate; cleared once a command line has passed
            # the preexec hook. A stamp still set at the next prompt (an empty line, or a line cut
            # short by Ctrl-C) still counts its time as idle.
            __touchgate_prompt_at=
            # A shell that ran on this terminal before may have died (SIGKILL) in its line editor's
            # raw mode: give the gate back the line discipline it reads answers in.
            stty icanon echo icrnl isig </dev/tty 2>/dev/null
            # The shell's own launch: locked while the lock is on. (Inside tmux the session-created
            # hook launches the session; a new pane must not relaunch, and so relock, all of it.)
            if [ -n "$__touchgate_owner" ]; then
                __touchgate event did-finish-launching >/dev/null 2>&1 && __touchgate event did-become-active >/dev/null 2>&1
            fi
            __touchgate_exit() {
                __touchgate event will-resign-active >/dev/null 2>&1
                __touchgate event did-enter-background >/dev/null 2>&1
                __touchgate event will-terminate >/dev/null 2>&1
                return "${1:-0}"
            }
            """
        let recover = """
                    rc=$?
                    # The terminal is gone (hung up): no one can type here any more; rc stays non-zero.
                    { true </dev/tty; } 2>/dev/null || break
                    # A gate killed mid-way leaves the terminal as it held it: give back signals and
                    # echo, cover the screen again, say why, and pause, so a gate that fails at once
                    # does not spin.
                    stty icanon echo icrnl isig </dev/tty 2>/dev/null
                    printf '\(Self.recoverText)' "$rc" >/dev/tty 2>/dev/null
            """
        let specific = shell == "zsh" ? """
            zmodload zsh/datetime
            autoload -Uz add-zsh-hook
            # Runs the gate until it reports an unlock. Without job control (nomonitor, for this
            # function only) the gate stays in the shell's process group, so an interactive zsh may
            # ignore SIGTSTP along with SIGINT and SIGQUIT (it refuses to trap SIGTSTP while job
            # control is on), and the gate inherits all three from its first instruction.
            __touchgate_gate() {
                emulate -L zsh
                setopt localtraps nomonitor
                trap '' INT QUIT TSTP
                local rc=0
                until __touchgate gate "$@"; do
            \(recover)
                    sleep 1
                done
                return "$rc"
            }
            __touchgate_precmd() {
                if [[ -n $__touchgate_prompt_at ]]; then
                    __touchgate_gate --idle-since "$__touchgate_prompt_at" || return
                else
                    __touchgate_gate || return
                fi
                __touchgate_prompt_at=$EPOCHSECONDS
            }
            # zsh skips the rest of precmd when Ctrl-C lands in it, and shows the prompt anyway; a
            # Ctrl-C in preexec abandons the command line. So the gate runs here too, before every
            # command line: no command runs unless a gate passed after it was typed.
            __touchgate_preexec() {
                if [[ -n $__touchgate_prompt_at ]]; then
                    __touchgate_gate --idle-since "$__touchgate_prompt_at" || return
                else
                    __touchgate_gate || return
                fi
                __touchgate_prompt_at=
            }
            # First in the hook arrays, ahead of the user's own hooks; add-zsh-hook keeps theirs.
            precmd_functions=(__touchgate_precmd ${precmd_functions:#__touchgate_precmd})
            preexec_functions=(__touchgate_preexec ${preexec_functions:#__touchgate_preexec})
            if [[ -n $__touchgate_owner ]]; then add-zsh-hook zshexit __touchgate_exit; fi
            \(loadClose)
            fi
            """ : """
            # Runs the gate until it reports an unlock, with SIGINT, SIGQUIT and SIGTSTP ignored by
            # the shell and so by the gate from its first instruction; the user's traps come back after.
            __touchgate_gate() {
                local saved rc=0
                saved=$(trap -p INT QUIT TSTP)
                trap '' INT QUIT TSTP
                until __touchgate gate "$@"; do
            \(recover)
                    sleep 1
                done
                trap - INT QUIT TSTP
                eval "$saved"
                return "$rc"
            }
            # Last in PROMPT_COMMAND. bash runs PROMPT_COMMAND again when Ctrl-C cuts it short,
            # so no prompt shows before this gate passed.
            __touchgate_precmd() {
                local rc=$?
                if [ -n "$__touchgate_prompt_at" ]; then
                    __touchgate_gate --idle-since "$__touchgate_prompt_at"
                else
                    __touchgate_gate
                fi
                __touchgate_prompt_at=$EPOCHSECONDS
                return "$rc"
            }
            # The DEBUG trap, before each simple command: the first one after a prompt runs the
            # gate, so no command line runs unless a gate passed after it was typed. The stamp is
            # cleared only after the gate passed; a Ctrl-C before that abandons the command line,
            # and the next prompt's gate still sees the stamp.
            __touchgate_preexec() {
                # Tab completion runs commands too; it is not a command line.
                [ -z "${COMP_LINE-}" ] || return "${1:-0}"
                if [ -n "$__touchgate_prompt_at" ]; then
                    __touchgate_gate --idle-since "$__touchgate_prompt_at"
                    __touchgate_prompt_at=
                fi
                return "${1:-0}"
            }
            # The command of the user's trap for $1, if any.
            __touchgate_trap_command() {
                local words
                words=$(trap -p "$1")
                [ -n "$words" ] || return 0
                eval "set -- $words"
                printf '%s' "$3"
            }
            # Compose with the user's EXIT and DEBUG traps: ours first, then theirs, with the
            # status they would have seen.
            __touchgate_user_trap=$(__touchgate_trap_command EXIT)
            if [ -n "$__touchgate_owner" ]; then
                trap "__touchgate_exit \\"\\$?\\"${__touchgate_user_trap:+; $__touchgate_user_trap}" EXIT
            fi
            __touchgate_user_trap=$(__touchgate_trap_command DEBUG)
            trap "__touchgate_preexec \\"\\$?\\"${__touchgate_user_trap:+; $__touchgate_user_trap}" DEBUG
            unset __touchgate_user_trap
            # PROMPT_COMMAND as a string or (bash 5.1+) an array: ours goes last.
            if [[ $(declare -p PROMPT_COMMAND 2>/dev/null) == "declare -a"* ]]; then
                PROMPT_COMMAND+=(__touchgate_precmd)
            else
                PROMPT_COMMAND="${PROMPT_COMMAND:+$PROMPT_COMMAND; }__touchgate_precmd"
            fi
            \(loadClose)
            fi
            """
        writeLine(STDOUT_FILENO, common + "\n" + specific)
        return .success
    }
}

/// `text` as a tmux double-quoted string.
func tmuxQuoted(_ text: String) -> String {
    "\"" + text.replacingEvery("\\", with: "\\\\").replacingEvery("\"", with: "\\\"")
        .replacingEvery("$", with: "\\$") + "\""
}
