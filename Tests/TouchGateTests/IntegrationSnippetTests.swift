import Testing
@testable import TouchGate
@testable import TouchGateCore

/// The tmux and shell snippets: the lock-command that restarts the gate until an unlock, and
/// the baked command line in every hook.
@Suite struct IntegrationSnippetTests {
    let bake = SnippetBake(line: TouchGateCommandLine(executable: "/opt/tg#1/touchgate", user: "alice"))

    @Test func theLockCommandRunsTheGateUntilAnUnlock() {
        let command = IntegrationSnippet.lockCommand("tg", session: "'s1'", socket: "'/k'")
        #expect(command.hasPrefix("trap '' INT QUIT TSTP; until tg gate --lock --session 's1' --tmux-socket '/k'; do "))
        #expect(command.contains("|| exit 4"))
        #expect(command.contains(IntegrationSnippet.recoverText))
        #expect(!IntegrationSnippet.lockCommand("tg", session: nil).contains("--session"))
    }

    @Test func tmuxConfDoublesTheCommandsHashesAndLocksBeforeItRecords() {
        let text = IntegrationSnippet.tmuxConf(bake, hookStorePath: "/s/t.sqlite")
        #expect(text.contains("'/opt/tg##1/touchgate' '--user' 'alice' tmux-hook client-session-changed"))
        #expect(text.contains("set-environment -g TOUCHGATE_HOOK_STORE \"/s/t.sqlite\""))
        // The client is replaced and suspended before anything is recorded, and a replaced client
        // records nothing (it is gone; its detach is recorded as any other).
        let replace = text.firstRange(of: "set-hook -g client-session-changed[6] \"if-shell -F '#{==:#{@touchgate-way},replace}' \\\"set-hook -R @touchgate-replace\\\"\"")
        let suspend = text.firstRange(of: "set-hook -g client-session-changed[7] \"if-shell -F '#{==:#{@touchgate-way},replace}' \\\"set-option lock-command : ; set-hook -R @touchgate-lock\\\"\"")
        let record = text.firstRange(of: "set-hook -g client-session-changed[10] \"if-shell -F '#{!=:#{@touchgate-way},replace}' \\\"run-shell")
        #expect(replace != nil && suspend != nil && record != nil)
        // Every process a hook starts runs in the background: tmux waits for none.
        #expect(text.components(separatedBy: "run-shell ").count == text.components(separatedBy: "run-shell -b ").count)
        #expect(replace!.lowerBound < suspend!.lowerBound && suspend!.lowerBound < record!.lowerBound)
        // The replacement names the hook's client and the session, each in single quotes, and its
        // script's own '#' doubled for set-option -F.
        #expect(text.contains("detach-client -t '#{hook_client}' -E "))
        #expect(text.contains(" touchgate '#{socket_path}' 'tmux-#{pid}-#{session_id}' '#{session_id}' '#{hook_client}' "
            + "'#{?#{&&:#{==:#{client_name},#{hook_client}},#{client_readonly}},-r,}' "
            + "'#{?#{&&:#{==:#{client_name},#{hook_client}},#{client_utf8}},-u,}'"))
        // A control client is told apart only when tmux's current client is the hook's; a control
        // client that is not is replaced like any other (it is shown nothing).
        #expect(text.contains("#{?#{&&:#{==:#{client_name},#{hook_client}},#{client_control_mode}},control,"))
        #expect(text.contains(#"/opt/tg##1/touchgate\\\\\\\" \\\\\\\"--user"#))
        #expect(!IntegrationSnippet.tmuxConf(bake, hookStorePath: nil).contains("TOUCHGATE_HOOK_STORE"))
    }

    @Test func theReplacementAsksThenLetsTheClientInOnce() {
        let script = IntegrationSnippet.replacingScript(bake.line)
        // Signals first; no single quote, so the default-shell reads it single-quoted whatever it is.
        #expect(script.hasPrefix("trap \"\" INT QUIT TSTP; until \"/opt/tg#1/touchgate\" \"--user\" \"alice\" \"gate\" \"--lock\" --session \"$2\" --tmux-socket \"$1\"; do "))
        #expect(!script.contains("'"))
        // Only after the loop (an unlock): the pass, then the same process attaches again.
        #expect(script.hasSuffix("; done; tmux -S \"$1\" set-option -t \"$3\" -a @touchgate-pass \" $4 \" && exec tmux $6 -S \"$1\" attach-session $5 -t \"$3\""))
        #expect(doubleQuoted("a$b`c\"d\\e") == "\"a\\$b\\`c\\\"d\\\\e\"")
    }

    @Test func shellInitCarriesTheBinaryAndOptionsQuoted() {
        let text = IntegrationSnippet.shellInit("zsh", bake, code: "# the code")
        #expect(text.contains("__touchgate_binary='/opt/tg#1/touchgate'"))
        #expect(text.contains("__touchgate_options=('--user' 'alice')"))
        #expect(text.hasSuffix("# the code"))
        #expect(tmuxQuoted("a\"b$c\\") == "\"a\\\"b\\$c\\\\\"")
    }
}
