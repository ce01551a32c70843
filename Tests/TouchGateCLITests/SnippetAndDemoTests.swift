import Foundation
import Glibc
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

    /// The binary is named too, and the last comment lines give the command that generates the
    /// snippet again with the same values: run elsewhere, without the variables it was made
    /// with, that command prints the same commands.
    @Test(arguments: snippets)
    func theSnippetsSayHowToGenerateThemAgain(arguments: [String]) throws {
        let world = try TestEnvironment()
        let first = try world.run(arguments)
        #expect(first.status == 0, "\(first)")
        let block = Self.bakedBlock(first.stdout)
        #expect(block.contains("#   binary \(TestEnvironment.binary)   (the touchgate that generated it)"), "\(block)")
        let lines = first.stdout.split(separator: "\n").map(String.init)
        let intro = try #require(lines.firstIndex(of: "# generate it again. With the same values (standard output is the snippet):"),
                                 "\(first.stdout)")
        let again = lines[intro + 1]
        #expect(again.hasPrefix("#   '\(TestEnvironment.binary)' '--store' '\(world.storePath)' '--user' 'alice' '--pam-confdir' "), "\(again)")
        var bare = world.environment
        for name in ["TOUCHGATE_STORE", "TOUCHGATE_USER", "TOUCHGATE_PAM_CONFDIR"] { bare[name] = nil }
        let second = try TestEnvironment.execute("/bin/sh", ["-c", "cd / && " + again.dropFirst(4)], environment: bare)
        #expect(second.status == 0, "\(second)")
        func commands(_ text: String) -> [String] { text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") } }
        #expect(commands(second.stdout) == commands(first.stdout), "\(second.stdout)")
    }

    /// A relative `--store` is baked from the root: the hooks run in every directory the user
    /// visits (and tmux's in the server's), and each would otherwise read a store of its own.
    @Test(arguments: snippets)
    func aRelativeStoreIsBakedFromTheRoot(arguments: [String]) throws {
        let world = try TestEnvironment()
        let absolute = world.directory.appendingPathComponent("here/touchgate.sqlite").path
        var environment = world.environment
        environment["TOUCHGATE_STORE"] = nil
        let made = try TestEnvironment.execute(
            "/bin/sh", ["-c", "cd \"$1\" && b=$2 && shift 2 && exec \"$b\" --store here/touchgate.sqlite \"$@\"", "sh", world.directory.path,
                        TestEnvironment.binary] + arguments, environment: environment)
        #expect(made.status == 0, "\(made)")
        #expect(Self.bakedBlock(made.stdout).contains("#   --store \(absolute)   (from --store)"), "\(made.stdout)")
        #expect(made.stdout.contains("'--store' '\(absolute)'"), "\(made.stdout)")
        #expect(!made.stdout.contains("'here/touchgate.sqlite'"), "\(made.stdout)")
        // tmux-conf exports the hooks' store; shell-init's owner (touchgate shell) exports the one it reads itself.
        if arguments == ["tmux-conf"] {
            #expect(made.stdout.split(separator: "\n").contains { $0.contains("TOUCHGATE_HOOK_STORE") && $0.contains(absolute) },
                    "\(made.stdout)")
        }
    }

    /// Generating a snippet reads the store's id, and so makes the store when there is none: it
    /// says so (a new store, lock off), on standard error and in the snippet. A store it cannot
    /// read leaves the snippet without an id, and that is said too; the snippet is still printed
    /// (an rc file that eval's it would otherwise get no gate at all).
    @Test(arguments: snippets)
    func aStoreMadeOrUnreadableWhileGeneratingIsSaid(arguments: [String]) throws {
        let world = try TestEnvironment()
        let made = try world.run(arguments)
        #expect(made.status == 0, "\(made)")
        #expect(made.stderr == "touchgate: made a new store at \(world.storePath) (lock off) for this snippet; touchgate enable turns the lock on\n",
                "\(made)")
        let id = try #require(try world.statusJSON()["storeId"] as? String)
        #expect(Self.bakedBlock(made.stdout).contains(
            "#   --store-id \(id)   (from the store's own id); that store was made now, with the lock off"), "\(made.stdout)")

        let again = try world.run(arguments)
        #expect(again.stderr.isEmpty, "\(again)")
        #expect(!again.stdout.contains("made now"), "\(again.stdout)")

        let directory = (world.storePath as NSString).deletingLastPathComponent
        #expect(chmod(directory, 0o777) == 0)
        defer { chmod(directory, 0o700) }
        let unreadable = try world.run(arguments)
        #expect(unreadable.status == 0, "\(unreadable)")
        #expect(unreadable.stderr.hasPrefix("touchgate: the snippet carries no store id: store \(world.storePath): directory "), "\(unreadable)")
        #expect(unreadable.stderr.contains("is writable by other users"), "\(unreadable)")
        let block = Self.bakedBlock(unreadable.stdout)
        #expect(block.contains { $0.hasPrefix("#   no --store-id: the store could not be read (store \(world.storePath): directory ") },
                "\(block)")
        #expect(!unreadable.stdout.contains("'--store-id'"), "\(unreadable.stdout)")
    }

    /// Generated inside a session whose integration's store was deleted (an rc file that eval's
    /// `shell-init`, in a shell started from an integrated one): the snippet's new store is said
    /// to stand where the integration's store was.
    @Test(arguments: snippets)
    func aSnippetMadeWhereTheIntegrationsStoreWasSaysThatStoreIsGone(arguments: [String]) throws {
        let world = try TestEnvironment()
        _ = try world.statusJSON()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: world.storePath + suffix) }
        var environment = world.environment
        environment["TOUCHGATE_HOOK_STORE"] = world.storePath
        let made = try TestEnvironment.execute(TestEnvironment.binary, arguments, environment: environment)
        #expect(made.status == 0, "\(made)")
        #expect(made.stderr == "touchgate: made a new store at \(world.storePath) (lock off) for this snippet, where this "
                + "session's integration had its store: that store is gone (deleted or moved); touchgate enable turns the lock on\n",
                "\(made)")
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

        // The gate typed by hand with that store says so too (it opens a store made now, lock off).
        let third = world.directory.appendingPathComponent("third/touchgate.sqlite").path
        try shell.typeLine("TOUCHGATE_STORE='\(third)' '\(TestEnvironment.binary)' gate 2>'\(errors)'; echo GATE-$((40+2))-$?")
        try shell.waitForScreen(containing: "GATE-42-0")
        #expect(try String(contentsOfFile: errors, encoding: .utf8)
                == "touchgate: made a new store at \(third) (lock off); this session's integration reads the store at \(world.storePath)\n")
    }

    /// The store the integration was set up with is deleted, and a command typed in the session
    /// makes a new one at the same path: it says the store there is new (lock off) and that the
    /// integration does not read it (its owner carries the old store's id).
    @Test(arguments: ShellIntegrationTests.shells)
    func aNewStoreInPlaceOfTheIntegrationsStoreSaysSo(shell name: String) throws {
        let world = try TestEnvironment()
        _ = try world.statusJSON()
        let shell = try ShellHarness(world: world, shell: name)
        defer { shell.shutdown() }
        try shell.start()
        try shell.waitForPrompt()
        let errors = world.directory.appendingPathComponent("typed.err").path
        let store = world.storePath
        try shell.typeLine("rm -f '\(store)' '\(store)-wal' '\(store)-shm'; '\(TestEnvironment.binary)' status >/dev/null 2>'\(errors)'")
        // (The owner's gate carries the old id: at the session's next lock it refuses the new
        // store and asks for the passcode: ShellIntegrationTests.aShellWhoseStoreWasDeleted….)
        try shell.typeLine("echo TYPED-$((40+2))")
        try shell.waitForScreen(containing: "TYPED-42")
        let text = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(text == "touchgate: made a new store at \(store) (lock off) where this session's integration had its store: "
                + "that store is gone (deleted or moved), and the integration does not read a new one; "
                + "generate it again (touchgate tmux-conf, touchgate shell-init)\n", "\(text)")
    }

    /// The hooks' gate carries `--store-id`: started with another store path (another
    /// `TOUCHGATE_STORE` or `--store`), it makes no store there; it asks for the passcode and
    /// names the path it looked at and the store it expected.
    @Test func theHooksGateMakesNoStoreAndNamesThePathItLookedAt() throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        let id = try #require(try world.statusJSON()["storeId"] as? String)
        let other = world.directory.appendingPathComponent("other/touchgate.sqlite").path
        var environment = world.environment
        environment["TOUCHGATE_HOOK_STORE"] = world.storePath
        environment["TOUCHGATE_STORE"] = other
        let gate = try TestEnvironment.execute(TestEnvironment.binary, ["--store-id", id, "-S", "gate", "--session", "term-1"],
                                               input: "alice-passcode\n", environment: environment)
        #expect(gate.status == 0, "the passcode opens it: \(gate)")
        #expect(gate.stderr.contains("store \(other): does not exist, but the integration that ran touchgate expects store \(id)"),
                "\(gate)")
        #expect(!FileManager.default.fileExists(atPath: other))
        #expect(!FileManager.default.fileExists(atPath: (other as NSString).deletingLastPathComponent))
    }
}
