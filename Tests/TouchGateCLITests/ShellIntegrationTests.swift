import Foundation
import Testing

/// `touchgate shell-init bash|zsh` in real interactive shells (`bash -i`, `zsh -i`) in a real
/// pseudo-terminal, typed at as a person would, against real PAM and a real store: the snippet
/// starts `touchgate shell`, the terminal owner, which holds the terminal from then on.
///
/// These replace the tests of the shell hooks (a gate before each prompt and command line),
/// which no longer exist; what each old test checked is now the owner's (ShellOwnerTests: a
/// locked session runs nothing by any key, the idle lock, a Ctrl-C flood at the start).
@Suite(.serialized) struct ShellIntegrationTests {
    static let finger = "alice-finger"
    static let passcode = "alice-passcode"
    static let gateTitle = "touchgate: this session is locked"
    static let shells = ["bash", "zsh"]

    /// A world with the lock on and alice enrolled (lockouts relaxed for tests that type many answers).
    static func lockedWorld(configure: [(String, String)] = []) throws -> TestEnvironment {
        let world = try TestEnvironment()
        try world.gateRelaxLockout()
        for (key, value) in configure {
            let set = try world.run(["config", "set", key, value])
            guard set.status == 0 else { throw TestFailure("config set \(key) failed: \(set)") }
        }
        try world.enableAndEnroll()
        return world
    }

    /// Waits for the gate's prompt, and checks the screen shows nothing else.
    @discardableResult
    static func waitForGate(_ shell: ShellHarness) throws -> String {
        try shell.waitForScreen(containing: gateTitle)
        let screen = try shell.waitForScreen(containing: "Password:")
        #expect(!screen.contains("can't trap") && !screen.contains("command not found"), "\(screen)")
        return screen
    }

    /// Unlocks at the gate's biometric prompt, and waits for the shell's prompt.
    static func unlock(_ shell: ShellHarness) throws {
        try waitForGate(shell)
        try shell.typeLine(finger)
        try shell.waitForPrompt()
    }

    /// The lines of file `name` in the world's directory ("" when it does not exist).
    static func lines(_ world: TestEnvironment, _ name: String) -> [String] {
        let path = world.directory.appendingPathComponent(name).path
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// A command line that appends `word` to file `name` of the world: proof that a command ran.
    static func mark(_ world: TestEnvironment, _ name: String, _ word: String) -> String {
        "echo \(word) >> '\(world.directory.appendingPathComponent(name).path)'"
    }

    // MARK: - The snippet starts the owner, and a locked session runs nothing

    @Test(arguments: shells)
    func theSnippetStartsTheOwnerAndALockedSessionRunsNothing(shell name: String) throws {
        let world = try Self.lockedWorld()
        // The user's own prompt hooks and traps: the snippet adds none and changes none.
        let userLines = name == "zsh"
            ? "precmd() { :; }\ntrap 'echo USER-TRAP' USR2"
            : "PROMPT_COMMAND='true user-hook'\ntrap 'echo USER-TRAP' USR2"
        let shell = try ShellHarness(world: world, shell: name, userLines: userLines)
        defer { shell.shutdown() }
        try shell.start()
        // The owner asks before the shell's first prompt.
        let screen = try Self.waitForGate(shell)
        let owner = try world.sqlite("SELECT session FROM shell_owners")
        #expect(!owner.isEmpty)
        // Named by its terminal, not by the id.
        #expect(screen.contains("session: the shell on /dev/"), "\(screen)")
        #expect(!screen.contains("session: \(owner)"), "\(screen)")
        #expect(!screen.contains(ShellHarness.prompt))
        try shell.typeLine(Self.finger)
        try shell.waitForPrompt()
        #expect(try world.gateSessionStatus(owner)?.locked == false)
        // The shell inside runs under the owner (and would not start a second one).
        try shell.typeLine("echo \"IN-$TOUCHGATE_SHELL_SESSION\"")
        try shell.waitForScreen(containing: "IN-\(owner)")
        if name == "bash" {
            try shell.typeLine("echo \"PC=$PROMPT_COMMAND\"")
            try shell.waitForScreen(containing: "PC=true user-hook")
        }

        // Locked while the prompt shows: the cover comes up at once, without a key, and what is
        // typed next goes to the gate, never to the shell.
        try world.gateEvents(["will-resign-active", "did-enter-background"], session: owner)
        try Self.waitForGate(shell)
        try shell.typeLine(Self.mark(world, "ran", "TYPED"))
        Thread.sleep(forTimeInterval: 0.3)
        #expect(Self.lines(world, "ran").isEmpty)
        try Self.unlockAtAnyPrompt(shell)
        try shell.waitForPrompt()
        try shell.keys("Enter")
        try shell.waitForPrompt()
        #expect(Self.lines(world, "ran").isEmpty, "a line typed at the gate reached the shell")
        try shell.typeLine(Self.mark(world, "ran", "AFTER"))
        try gateEventually("a command to run after the unlock") { Self.lines(world, "ran") == ["AFTER"] }
    }

    /// Types the finger at the biometric prompt or the passcode at the passcode prompt, until the gate is gone.
    static func unlockAtAnyPrompt(_ shell: ShellHarness) throws {
        for _ in 0..<4 {
            let prompts = try shell.screen().split(separator: "\n").filter { $0.contains("touchgate: unlock ") }
            try shell.typeLine(prompts.last?.contains("(passcode for") == true ? Self.passcode : Self.finger)
            do {
                try gateEventually("the gate gone", timeout: 5) { try !shell.screen().contains(gateTitle) }
                return
            } catch {}
        }
        throw TestFailure("the gate did not unlock; the screen:\n\(try shell.screen())")
    }

    // MARK: - A deleted store is damage for a shell whose snippet carries its id

    /// The snippet generated once into a file (README's install) names the store's id: after the
    /// store's directory is removed, a new interactive shell's owner meets the passcode-only gate,
    /// runs nothing before the passcode, and no new store with the lock off appears.
    @Test(arguments: shells)
    func aShellWhoseStoreWasDeletedAsksForThePasscode(shell name: String) throws {
        let world = try Self.lockedWorld()
        let shell = try ShellHarness(world: world, shell: name, generatedFile: true)
        defer { shell.shutdown() }
        let state = URL(fileURLWithPath: world.storePath).deletingLastPathComponent()
        try FileManager.default.removeItem(at: state)
        try shell.start()
        let screen = try shell.waitForScreen(containing: "only the passcode can unlock")
        #expect(screen.contains(Self.gateTitle), "\(screen)")
        try shell.typeLine(Self.mark(world, "ran", "EARLY"))
        try shell.waitForScreen(containing: "Password:")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(Self.lines(world, "ran").isEmpty, "a command ran before the passcode")
        #expect(!FileManager.default.fileExists(atPath: world.storePath), "a new store was made")
        try shell.typeLine(Self.passcode)
        try shell.waitForScreen(containing: ShellHarness.prompt)
        #expect(!FileManager.default.fileExists(atPath: world.storePath), "a new store was made")
    }

    // MARK: - Killing the gate never shows the session

    @Test(arguments: shells, [SIGTERM, SIGKILL])
    func killingTheGateBringsItBackAndRunsNothing(shell name: String, signal: Int32) throws {
        let world = try Self.lockedWorld()
        let shell = try ShellHarness(world: world, shell: name)
        defer { shell.shutdown() }
        try shell.start()
        // The gate before the shell starts: killed, it comes back; no prompt shows meanwhile.
        try Self.waitForGate(shell)
        let id = try #require(try shell.shellSessions().first)
        let first = try shell.gatePID(id)
        #expect(kill(first, signal) == 0)
        try shell.waitForScreen(containing: "it starts again")
        let second = try shell.gatePID(id, excluding: first)
        try Self.waitForGate(shell)
        #expect(!(try shell.atPrompt()))
        try shell.typeLine(Self.finger)
        try shell.waitForPrompt()

        // The gate over a locked prompt: killed, it comes back, and nothing typed runs.
        try shell.typeLine("echo BEFORE-THE-LOCK")
        try shell.waitForScreen(containing: "\nBEFORE-THE-LOCK")
        try world.gateEvents(["will-resign-active", "did-enter-background"], session: id)
        try Self.waitForGate(shell)
        let third = try shell.gatePID(id, excluding: second)
        #expect(kill(third, signal) == 0)
        try shell.waitForScreen(containing: "it starts again")
        #expect(!(try shell.screen().contains("BEFORE-THE-LOCK")), "the session showed between two gates")
        _ = try shell.gatePID(id, excluding: third)
        try Self.waitForGate(shell)
        try shell.typeLine(Self.mark(world, "ran", "TYPED"))
        #expect(try world.gateSessionStatus(id)?.locked == true)
        try Self.unlockAtAnyPrompt(shell)
        try shell.waitForScreen(containing: "BEFORE-THE-LOCK")
        #expect(Self.lines(world, "ran").isEmpty, "a line typed at the gate ran")
        // The shell's terminal works as before: its own Ctrl-C ends a foreground job.
        try shell.typeLine("sleep 30")
        Thread.sleep(forTimeInterval: 0.3)
        try shell.keys("C-c")
        try shell.typeLine(Self.mark(world, "ran", "AFTER-CTRL-C"))
        try gateEventually("Ctrl-C to end the job") { Self.lines(world, "ran") == ["AFTER-CTRL-C"] }
    }
}
