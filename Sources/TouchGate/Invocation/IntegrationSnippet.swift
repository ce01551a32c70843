import TouchGateCore

/// The integration snippets touchgate generates: `tmux-conf`'s lines for `~/.tmux.conf` and
/// `shell-init`'s for the top of `~/.bashrc` or `~/.zshrc`, each running the baked command line
/// (``SnippetBake``) in the hooks and locks that make tmux and the shell ask for the gate.
///
/// What each line does, and why in that order, is the lock itself; the CLI only prints it.
package enum IntegrationSnippet {
    /// The shell command tmux's lock-command runs: the gate, again and again until it reports an
    /// unlock (exit 0), because tmux shows the session whenever its lock-command exits, however
    /// the gate ended (SIGTERM, SIGKILL, a crash). It stops only when the client's terminal is gone
    /// (it can no longer be opened after a hang-up): then no one is there to see the session.
    /// Between two gates it covers the screen again, says why, and pauses a second, so a gate that
    /// fails at once does not spin.
    ///
    /// The shell ignores SIGINT, SIGQUIT and SIGTSTP, and each gate inherits that, so a key held
    /// down while the lock starts cannot end it once the `trap` has run. Before that it can:
    /// tmux's client runs the lock-command with `system()`, whose shell starts with SIGINT at its
    /// default while the client's terminal is back in its own mode (`ISIG` on), and tmux unlocks
    /// the client when that shell ends. So this lock is used only where the session was on the
    /// screen already (an idle lock, `lock-session`, the watcher); a client that gets a session
    /// is replaced instead (``replacingScript(_:)``).
    package static func lockCommand(_ touchgate: String, session: String?, socket: String? = nil) -> String {
        var gate = "\(touchgate) gate --lock"
        if let session { gate += " --session " + session }
        if let socket { gate += " --tmux-socket " + socket }
        return gateLoop(gate, quote: "'")
    }

    /// The loop of ``lockCommand(_:session:socket:)`` around `gate`, its own strings in `quote`.
    private static func gateLoop(_ gate: String, quote q: String) -> String {
        "trap \(q)\(q) INT QUIT TSTP; until \(gate); do s=$?; { true </dev/tty; } 2>/dev/null || exit 4; "
            + "printf \(q)\(recoverText)\(q) \"$s\" >/dev/tty 2>/dev/null; sleep 1; done"
    }

    /// The `printf` format the integrations write to the terminal between two gates (`%s` is the
    /// exit status of the gate that ended): the alternate screen, cleared, and one line.
    package static let recoverText = "\\033[?1049h\\033[H\\033[2J\\033[3Jtouchgate: the gate ended without an unlock (exit %s); it starts again.\\r\\n"

    /// The /bin/sh script a client that got a session runs in its place (tmux's `detach-client
    /// -E`): the gate loop over the session, then, after an unlock only, a pass for this client
    /// and `tmux attach` again. Its arguments: `$1` the server's socket, `$2` the touchgate
    /// session (`tmux-<pid>-$<n>`), `$3` the tmux session (`$<n>`), `$4` the client (its tty),
    /// `$5` `-r` for a read-only client or empty, `$6` `-u` for a UTF-8 client or empty.
    ///
    /// The client is gone, not locked, while the gate asks: whatever ends this shell (a Ctrl-C
    /// before its `trap`, a kill) ends the client too, and nothing shows the session. The pass
    /// (` $4 ` in the session's `@touchgate-pass`) lets the next client of that terminal in once,
    /// and the hook takes it back. The client comes back as the same process (`exec`), so job
    /// control (`suspend-client`) works as before.
    /// Only double quotes: the script itself is single-quoted for the session's default-shell.
    package static func replacingScript(_ line: TouchGateCommandLine) -> String {
        let gate = line.words(["gate", "--lock"]).map(doubleQuoted).joined(separator: " ")
            + " --session \"$2\" --tmux-socket \"$1\""
        return gateLoop(gate, quote: "\"")
            + "; tmux -S \"$1\" set-option -t \"$3\" -a @touchgate-pass \" $4 \" && exec tmux $6 -S \"$1\" attach-session $5 -t \"$3\""
    }

    /// `touchgate tmux-conf`: a snippet for `~/.tmux.conf`, with `bake`'s command line.
    ///
    /// tmux shows a session to a client as soon as it has one, and the client lock leaves a
    /// window (``lockCommand(_:session:socket:)``), so a client that gets a session (attach,
    /// new-session, switch-client) never shows it until the gate unlocked: client-session-changed
    /// replaces the client (``replacingScript(_:)``) inside the server, before the next redraw,
    /// and suspends it until it is gone. Only a client let in after an unlock keeps the session.
    /// A server that ends with its last client (`exit-unattached`) would end while the gate asks:
    /// its clients are locked in place (the old lock, with its window). Only then does `touchgate
    /// tmux-hook` record the events.
    package static func tmuxConf(_ bake: SnippetBake, hookStorePath: String?) -> String {
        // run-shell and set-option -F expand formats: a '#' of our own must be doubled.
        let command = bake.command.replacingEvery("#", with: "##")
        // Every process a hook starts runs in the background (-b): tmux runs the hooks of all
        // clients one after another, and a run-shell it waited for would hold back the next
        // client's hook while tmux draws that client. Records may then land out of order; none
        // of them unlocks anything (TmuxHookEvents).
        func runShell(_ name: String, _ arguments: String) -> String {
            "run-shell -b " + tmuxQuoted("\(command) tmux-hook \(name) \(arguments)")
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
        // tmux 3.3's client_* formats in a hook describe tmux's best guess at a current client,
        // which need not be the hook's: each is read only when that guess is the hook's client.
        func ofTheHookClient(_ flag: String) -> String { "#{&&:#{==:#{client_name},#{hook_client}},#{\(flag)}}" }
        // What the hook does with its client, decided once (the hook's entries test it): let in
        // (it holds a pass), control (tmux -C), in-place (the server ends with its last client),
        // or replace (also a control client that cannot be told apart: it is not shown anything).
        let way = "#{?#{m:* #{hook_client} *,#{@touchgate-pass}},let-in,"
            + "#{?\(ofTheHookClient("client_control_mode")),control,#{?#{exit-unattached},in-place,replace}}}"
        func when(_ value: String, is comparison: String = "==", and extra: String? = nil, _ commands: String) -> String {
            let test = "#{\(comparison):#{@touchgate-way},\(value)}"
            return "if-shell -F '" + (extra.map { "#{&&:\(test),\($0)}" } ?? test) + "' " + tmuxQuoted(commands)
        }
        // tmux 3.3's hooks have no client of their own: a command for the hook's client is
        // written with its name (set-option -F) and run as a user hook (set-hook -R).
        let replacement = "exec /bin/sh -c " + shellQuoted(replacingScript(bake.line)).replacingEvery("#", with: "##")
            + " touchgate '#{socket_path}' 'tmux-#{pid}-#{session_id}' '#{session_id}' '#{hook_client}' '#{?\(ofTheHookClient("client_readonly")),-r,}' '#{?\(ofTheHookClient("client_utf8")),-u,}'"
        // tmux never runs lock-command for a control-mode client (`tmux -C`): it has no terminal
        // of its own to run it in. Such a client stays attached only while the lock is known to
        // be off; any other answer (on, or the store unreadable) detaches it.
        let controlCheck = when("control", "run-shell -b " + tmuxQuoted(
            "\(command) --json status 2>/dev/null | grep -q '\"enabled\":false' || tmux detach-client -t '#{hook_client}'"))
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
            # Every record runs in the background: a process tmux waited for would hold back the next client's hook
            # while tmux draws that client (another attach, a grouped session's: new -t shows shared windows).
            \(hook("session-created", [runShell("session-created", "'#{client_name}' '#{session_id}'")]))
            # Attach, new-session and switch-client: before the client shows anything, it is replaced by the gate,
            # which attaches it again after an unlock (let in once). It is suspended until it is gone.
            # A server that ends with its last client locks it in place instead; a session that ends with its last
            # client (destroy-unattached) keeps going while the gate asks. A control-mode client (tmux -C) cannot be
            # locked: it is detached unless the lock is off.
            \(hook("client-session-changed", [
                "set-option -gF @touchgate-way " + tmuxQuoted(way),
                when("let-in", "set-option -F @touchgate-pass " + tmuxQuoted("#{s| #{hook_client} ||:@touchgate-pass}")),
                when("let-in", and: "#{@touchgate-destroy-unattached}",
                     "set-option destroy-unattached on ; set-option -u @touchgate-destroy-unattached"),
                when("replace", and: "#{destroy-unattached}",
                     "set-option destroy-unattached off ; set-option @touchgate-destroy-unattached 1"),
                "set-option -gF @touchgate-replace " + tmuxQuoted("detach-client -t '#{hook_client}' -E " + tmuxQuoted(replacement)),
                "set-option -gF @touchgate-lock " + tmuxQuoted("lock-client -t '#{hook_client}'"),
                when("replace", "set-hook -R @touchgate-replace"),
                when("replace", "set-option lock-command : ; set-hook -R @touchgate-lock"),
                "set-option -F lock-command " + tmuxQuoted(sessionLock),
                when("in-place", "set-hook -R @touchgate-lock"),
                when("replace", is: "!=", runShell("client-session-changed", "'#{hook_client}' '#{session_id}'")),
                controlCheck,
            ]))
            \(hook("client-detached", [runShell("client-detached", "'#{hook_client}'")]))
            \(hook("client-focus-in", [runShell("client-focus-in", "'#{client_name}' '#{session_id}'")]))
            \(hook("client-focus-out", [runShell("client-focus-out", "'#{client_name}' '#{session_id}'")]))
            # Now, as this is sourced (a running server too): its sessions and its socket, wherever it is, recorded
            # for touchgate watch.
            \(runShell("sourced", "'' '#{S:#{session_id} }'"))
            """
        return text
    }

    /// `touchgate shell-init bash|zsh`: the lines for the top of `~/.bashrc` or `~/.zshrc` that
    /// replace an interactive shell on a terminal with `touchgate shell` (the terminal owner)
    /// running the same shell.
    ///
    /// No shell hook gates anything any more: hooks are not a lock (a line with no simple command,
    /// a Tab expansion, a foreground program, a `PROMPT_COMMAND` assignment all went past them).
    /// The owner holds the terminal instead. The code is `shell/shell-init.sh`, embedded at build
    /// time (`code`); only the baked-in binary and options are written here, shell-quoted.
    package static func shellInit(_ shell: String, _ bake: SnippetBake, code: String) -> String {
        let options = bake.line.arguments([]).map(shellQuoted).joined(separator: " ")
        let text = """
            # touchgate shell integration, generated by `touchgate shell-init \(shell)`.
            # Put it FIRST in the rc file: it starts this shell under `touchgate shell` (the owner).
            \(bake.comment(generatedBy: ["shell-init", shell]))
            #
            __touchgate_binary=\(shellQuoted(bake.line.executable))
            __touchgate_options=(\(options))
            \(code)
            """
        return text
    }
}

/// `text` as a tmux double-quoted string.
package func tmuxQuoted(_ text: String) -> String {
    "\"" + text.replacingEvery("\\", with: "\\\\").replacingEvery("\"", with: "\\\"")
        .replacingEvery("$", with: "\\$") + "\""
}

/// `word` in a POSIX shell's double quotes: `$`, `` ` ``, `"` and `\\` escaped.
package func doubleQuoted(_ word: String) -> String {
    "\"" + word.replacingEvery("\\", with: "\\\\").replacingEvery("$", with: "\\$")
        .replacingEvery("`", with: "\\`").replacingEvery("\"", with: "\\\"") + "\""
}
