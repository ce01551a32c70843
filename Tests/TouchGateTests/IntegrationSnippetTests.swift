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
        let lock = text.firstRange(of: "set-hook -g client-session-changed[1] \"lock-client\"")
        let record = text.firstRange(of: "set-hook -g client-session-changed[2]")
        #expect(lock != nil && record != nil && lock!.lowerBound < record!.lowerBound)
        #expect(!IntegrationSnippet.tmuxConf(bake, hookStorePath: nil).contains("TOUCHGATE_HOOK_STORE"))
    }

    @Test func shellInitCarriesTheBinaryAndOptionsQuoted() {
        let text = IntegrationSnippet.shellInit("zsh", bake, code: "# the code")
        #expect(text.contains("__touchgate_binary='/opt/tg#1/touchgate'"))
        #expect(text.contains("__touchgate_options=('--user' 'alice')"))
        #expect(text.hasSuffix("# the code"))
        #expect(tmuxQuoted("a\"b$c\\") == "\"a\\\"b\\$c\\\\\"")
    }
}
