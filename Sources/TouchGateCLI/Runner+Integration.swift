import Glibc
import TouchGate
import TouchGateSystem

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
    func lockCommand(_ touchgate: String, session: String?, socket: String? = nil) -> String {
        var gate = "\(touchgate) gate --lock"
        if let session { gate += " --session " + session }
        if let socket { gate += " --tmux-socket " + socket }
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
        let sessionLock = lockCommand(command, session: "'tmux-#{pid}-#{session_id}'", socket: "'#{socket_path}'")
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
            # Now, as this is sourced (a running server too): its sessions and its socket, wherever it is, recorded
            # for touchgate watch.
            \(runShell("sourced", "'' '#{S:#{session_id} }'", background: true))
            """
        writeLine(STDOUT_FILENO, text)
        return .success
    }

    /// What the hooks from ``tmuxConf()`` run (``TmuxHookEvents``).
    func tmuxHook(_ hook: TmuxHook, client: String, session tmuxSession: String?) throws -> ExitCode {
        if tmuxSession == nil, hook == .sessionCreated || hook == .clientSessionChanged {
            throw UsageError("usage: touchgate tmux-hook \(hook.rawValue) CLIENT SESSION")
        }
        let store = try openStore()
        // $TMUX is SOCKET,PID,SESSION: the server's pid names the sessions, and its socket is what
        // `touchgate watch` locks the clients through.
        let tmux = environment["TMUX"].map { $0.split(separator: ",", omittingEmptySubsequences: false) } ?? []
        let hooks = TmuxHookEvents(events: LifecycleEvents(store: store, user: try user, probe: probe),
                                   server: tmux.dropFirst().first.map(String.init), socket: tmux.first.map(String.init))
        try hooks.handle(hook, client: client, session: tmuxSession)
        return .success
    }

    /// Locks every client of tmux session `id` (`tmux-<server pid>-$<n>`) once a gate found it
    /// locked, so a lock that one client or one pane met (a pane's idle time, a `lock-client`)
    /// covers every terminal that shows the session: `tmux lock-session`, through the socket the
    /// store recorded for it, else `named` (the lock-command's `--tmux-socket`), else the one
    /// `$TMUX` names when it is this session's. A client
    /// that is locked already is left as it is, so this is safe to repeat. The server gets 2 s to
    /// answer; nothing it says reaches the terminal.
    func lockTmuxClients(of id: String, store: Store, socket named: String? = nil) {
        guard id.hasPrefix("tmux-"), let dollar = id.lastIndex(of: "$") else { return }
        let target = String(id[dollar...])
        let fromTMUX = environment["TMUX"].flatMap { value -> String? in
            guard tmuxSessionID(value) == id, let socket = value.split(separator: ",").first else { return nil }
            return String(socket)
        }
        guard let socket = ((try? store.session(id))?.flatMap(\.tmuxSocket)) ?? named ?? fromTMUX, socket.hasPrefix("/") else { return }
        ChildProcess.runQuietly(["tmux", "-S", socket, "lock-session", "-t", target], searchPath: true, until: .after(seconds: 2))
    }

    /// `touchgate shell-init bash|zsh`: the lines for the top of `~/.bashrc` or `~/.zshrc` that
    /// replace an interactive shell on a terminal with `touchgate shell` (the terminal owner)
    /// running the same shell.
    ///
    /// No shell hook gates anything any more: hooks are not a lock (a line with no simple command,
    /// a Tab expansion, a foreground program, a `PROMPT_COMMAND` assignment all went past them).
    /// The owner holds the terminal instead. The code is `shell/shell-init.sh`, embedded at build
    /// time; only the baked-in binary and options are written here, shell-quoted.
    func shellInit(_ shell: String) -> ExitCode {
        let bake = bakeSnippet()
        let options = bake.options.flatMap { [$0.option, $0.value] }.map(shellQuoted).joined(separator: " ")
        let text = """
            # touchgate shell integration, generated by `touchgate shell-init \(shell)`.
            # Put it FIRST in the rc file: it starts this shell under `touchgate shell` (the owner).
            \(bake.comment(generatedBy: ["shell-init", shell]))
            #
            __touchgate_binary=\(shellQuoted(bake.executable))
            __touchgate_options=(\(options))
            \(embeddedShellFiles["shell-init.sh"] ?? "")
            """
        writeLine(STDOUT_FILENO, text)
        return .success
    }
}

/// `text` as a tmux double-quoted string.
func tmuxQuoted(_ text: String) -> String {
    "\"" + text.replacingEvery("\\", with: "\\\\").replacingEvery("\"", with: "\\\"")
        .replacingEvery("$", with: "\\$") + "\""
}
