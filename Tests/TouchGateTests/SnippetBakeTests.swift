import Testing
@testable import TouchGate
@testable import TouchGateCore

/// What a generated snippet says of where its values came from, and how to generate it again.
@Suite struct SnippetBakeTests {
    @Test func theCommentNamesEachValuesSourceAndTheCommandAgain() {
        var bake = SnippetBake(line: TouchGateCommandLine(executable: "/usr/bin/touchgate"))
        let environment = ["TOUCHGATE_USER": "alice"]
        bake.take(\.user, "--user", given: nil, variable: "TOUCHGATE_USER", from: { environment[$0] })
        bake.take(\.pamConfigurationDirectory, "--pam-confdir", given: "/p", variable: "TOUCHGATE_PAM_CONFDIR", from: { _ in "/x" })
        bake.line.storeID = "id9"
        bake.sources["--store-id"] = "the store's own id"
        bake.madeStore = true
        #expect(bake.command == "'/usr/bin/touchgate' '--store-id' 'id9' '--user' 'alice' '--pam-confdir' '/p'")
        let comment = bake.comment(generatedBy: ["tmux-conf"])
        #expect(comment.contains("#   --user alice   (from TOUCHGATE_USER)"))
        #expect(comment.contains("#   --pam-confdir /p   (from --pam-confdir)"))
        #expect(comment.contains("#   --store-id id9   (from the store's own id); that store was made now, with the lock off"))
        #expect(comment.contains("#   no --store: TOUCHGATE_STORE where it runs, else the default store"))
        // The id is read anew: not in the command that generates it again.
        #expect(comment.hasSuffix("#   '/usr/bin/touchgate' '--user' 'alice' '--pam-confdir' '/p' 'tmux-conf'"))
    }

    @Test func aStoreThatCouldNotBeReadIsSaid() {
        var bake = SnippetBake(line: TouchGateCommandLine(executable: "/t"))
        bake.storeProblem = "corrupt\u{1B}[2J"
        let comment = bake.comment(generatedBy: ["shell-init", "bash"])
        #expect(comment.contains("#   no --store-id: the store could not be read"))
        #expect(!comment.contains("\u{1B}"))
    }
}
