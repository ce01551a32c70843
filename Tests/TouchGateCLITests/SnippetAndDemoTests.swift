import Foundation
import Testing

/// What a new user reads: the generated snippets say which options they carry and from where,
/// and the demo shows the gate's cover, the screen a locked session actually gets.
@Suite struct SnippetAndDemoTests {
    static let snippets = [["tmux-conf"], ["shell-init", "bash"], ["shell-init", "zsh"]]

    /// The comment lines of `text` that begin the baked-options block, up to the first line that
    /// is not part of it.
    static func bakedBlock(_ text: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("# Baked in from where this was generated") }) else { return [] }
        return Array(lines[start...].prefix { $0.hasPrefix("#") && ($0 == lines[start] || $0.hasPrefix("#   ")) })
    }

    /// From the environment (as TestEnvironment sets it: TOUCHGATE_STORE, TOUCHGATE_USER,
    /// TOUCHGATE_PAM_CONFDIR), and from the command line.
    @Test(arguments: snippets)
    func theSnippetsNameWhatTheyBakedIn(arguments: [String]) throws {
        let world = try TestEnvironment()
        let id = try #require(try world.statusJSON()["storeId"] as? String)
        let fromEnvironment = try world.run(arguments)
        #expect(fromEnvironment.status == 0, "\(fromEnvironment)")
        let block = Self.bakedBlock(fromEnvironment.stdout)
        #expect(block.contains("#   --store \(world.storePath)   (from TOUCHGATE_STORE)"), "\(block)")
        #expect(block.contains("#   --store-id \(id)   (from the store's own id)"), "\(block)")
        #expect(block.contains("#   --user alice   (from TOUCHGATE_USER)"), "\(block)")
        #expect(block.contains("#   --pam-confdir \(world.pamDirectory.path)   (from TOUCHGATE_PAM_CONFDIR)"), "\(block)")

        let fromOptions = try world.run(["--user", "alice", "--store-id", id] + arguments)
        let optionBlock = Self.bakedBlock(fromOptions.stdout)
        #expect(optionBlock.contains("#   --user alice   (from --user)"), "\(optionBlock)")
        #expect(optionBlock.contains("#   --store-id \(id)   (from --store-id)"), "\(optionBlock)")
    }

    /// What is not baked is said too; and a value with a line break stays inside its comment line
    /// (the snippet is sourced by tmux or eval'd by the shell: a new line there would be a command).
    @Test(arguments: snippets)
    func anOptionNotBakedIsNamedAndNoValueEndsTheComment(arguments: [String]) throws {
        let world = try TestEnvironment()
        let confdir = world.directory.appendingPathComponent("pam\ntouch /tmp/pwned").path
        let plain = try TestEnvironment.execute(TestEnvironment.binary, arguments, input: nil, environment: {
            var environment = world.environment
            environment["TOUCHGATE_USER"] = nil
            environment["TOUCHGATE_PAM_CONFDIR"] = confdir
            return environment
        }())
        #expect(plain.status == 0, "\(plain)")
        let block = Self.bakedBlock(plain.stdout)
        #expect(block.contains("#   no --user: TOUCHGATE_USER where it runs, else the user running it"), "\(block)")
        #expect(block.contains { $0.hasPrefix("#   --pam-confdir ") && $0.contains("pam\\u{a}touch /tmp/pwned") }, "\(block)")
        // (The command lines quote the value, line break and all; only the comment shows it escaped.)
        #expect(!plain.stdout.contains("\ntouch /tmp/pwned   (from"), "\(plain.stdout)")
    }

    /// `touchgate demo` draws the gate's cover for the locked session: the locked notice, user and
    /// session, the attempts left, and later the lockout, inside a frame; no escape sequence.
    @Test func theDemoShowsTheGatesCover() throws {
        let world = try TestEnvironment()
        let demo = try world.run(["demo"], timeout: 120)
        #expect(demo.status == 0, "\(demo)")
        #expect(demo.stdout.contains("the gate covers the terminal"), "\(demo.stdout)")
        #expect(demo.stdout.contains("│ touchgate: this session is locked"), "\(demo.stdout)")
        #expect(demo.stdout.contains("│   session: demo-session"), "\(demo.stdout)")
        #expect(demo.stdout.contains("│   Biometric attempts left: 5 of 5."), "\(demo.stdout)")
        #expect(demo.stdout.contains("│   Biometrics are locked out after 5 failures: use the passcode."), "\(demo.stdout)")
        #expect(!demo.stdout.contains("\u{1B}"), "the demo's output holds an escape sequence")
        #expect(demo.stdout.contains("Demo finished: every step behaved as expected."), "\(demo.stdout)")
    }
}

/// A command typed in an integrated shell that makes a new store somewhere else (another
/// `TOUCHGATE_STORE`) says which store the shell's integration reads; the lock it would turn on
/// there is one no hook ever reads.
@Suite(.serialized) struct HookStoreNoticeTests {
    @Test(arguments: ShellIntegrationTests.shells)
    func aNewStoreMadeByHandNamesTheStoreTheIntegrationReads(shell name: String) throws {
        let world = try TestEnvironment()
        _ = try world.statusJSON()
        let shell = try ShellHarness(world: world, shell: name)
        defer { shell.shutdown() }
        try shell.start()
        try shell.waitForPrompt()
        let other = world.directory.appendingPathComponent("other/touchgate.sqlite").path
        let errors = world.directory.appendingPathComponent("typed.err").path
        let typed = "TOUCHGATE_STORE='\(other)' '\(TestEnvironment.binary)' status"
        // Twice: only the run that makes the store says so. The marker is computed, so the
        // command line echoed at the prompt does not match it.
        try shell.typeLine("\(typed) >/dev/null 2>'\(errors)'; \(typed) >/dev/null 2>>'\(errors)'; echo TYPED-$((40+2))")
        try shell.waitForScreen(containing: "TYPED-42")
        let text = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(text == "touchgate: made a new store at \(other) (lock off); this session's integration reads the store at \(world.storePath)\n",
                "\(text)")
        // The store the integration reads is untouched; the gate and hooks still use it.
        #expect(FileManager.default.fileExists(atPath: other))
    }
}
