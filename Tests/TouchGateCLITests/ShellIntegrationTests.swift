import Foundation
import Testing

/// `touchgate shell-init bash|zsh` in real interactive shells (`bash -i`, `zsh -i`) in a real
/// pseudo-terminal, typed at as a person would, against real PAM and a real store.
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

    // MARK: - Item 1: the gate runs in an interactive shell, and a locked session runs nothing

    @Test(arguments: shells)
    func aLockedInteractiveShellRunsNoCommandWithoutTheGate(shell name: String) throws {
        let world = try Self.lockedWorld()
        let shell = try ShellHarness(world: world, shell: name)
        defer { shell.shutdown() }
        try shell.start()
        // A new shell launched its own session, locked: the gate asks before the first prompt.
        let screen = try Self.waitForGate(shell)
        let id = try #require(try shell.shellSessions().first, "no shell session in the store")
        // Named by its terminal, not by the id \(id).
        #expect(screen.contains("session: the shell on /dev/pts/"), "\(screen)")
        try shell.typeLine("not-the-finger")
        // The second try's prompt, after the cover is drawn again with the wrong try said: a line
        // typed before it is discarded, and its Enter alone would be the fallback.
        try shell.waitForScreen(containing: "biometric tries left before a lockout.\nPassword:")
        #expect(try world.gateSessionStatus(id)?.locked == true)
        try shell.typeLine(Self.finger)
        try shell.waitForPrompt()
        #expect(try world.gateSessionStatus(id)?.locked == false)
        try shell.typeLine(Self.mark(world, "ran", "FIRST"))
        try gateEventually("the first command to run") { Self.lines(world, "ran") == ["FIRST"] }
        try shell.waitForPrompt()

        // Locked while the prompt shows (the session went to the background): the command typed
        // next waits for the gate, and runs only after the unlock.
        try world.gateEvents(["will-resign-active", "did-enter-background"], session: id)
        try shell.typeLine(Self.mark(world, "ran", "SECOND"))
        try Self.waitForGate(shell)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(Self.lines(world, "ran") == ["FIRST"], "a command ran in a locked session")
        try shell.typeLine("")
        try shell.waitForScreen(containing: "(passcode for alice)")
        try shell.typeLine(Self.passcode)
        try gateEventually("the command to run after the unlock") { Self.lines(world, "ran") == ["FIRST", "SECOND"] }
        try shell.waitForPrompt()
        #expect(try world.gateSessionStatus(id).map { $0.state == "active" && !$0.locked } == true)
    }

    /// Ctrl-C held while a new shell loads the snippet must not cut it short: a shell left
    /// without its hooks would run commands with the lock on. The snippet's launch event is held
    /// (the store's write lock is taken by `sqlite3`), Ctrl-C is pressed many times meanwhile,
    /// then the lock is let go: the gate must ask, and after the unlock the hooks must still gate
    /// a session sent to the background.
    @Test(arguments: shells)
    func ctrlCWhileTheSnippetLoadsNeverLeavesTheShellWithoutTheGate(shell name: String) throws {
        let world = try Self.lockedWorld()
        let shell = try ShellHarness(world: world, shell: name)
        defer { shell.shutdown() }
        let holder = try RunningProcess(["/usr/bin/sqlite3", world.storePath], environment: world.environment)
        defer { holder.signal(SIGKILL) }
        // The error names the marker once BEGIN IMMEDIATE went through: the lock is held.
        holder.write("BEGIN IMMEDIATE;\nSELECT * FROM held_marker;\n")
        try holder.waitForError(containing: "held_marker")
        try shell.start()
        try gateEventually("the snippet's launch event to wait for the store") {
            Self.processes(containing: "did-finish-launching", and: world.storePath) > 0
        }
        for _ in 0..<20 {
            try shell.keys("C-c")
            Thread.sleep(forTimeInterval: 0.01)
        }
        holder.write("COMMIT;\n")
        holder.closeInput()
        try shell.typeLine(Self.mark(world, "ran", "TYPED"))
        try Self.waitForGate(shell)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(Self.lines(world, "ran").isEmpty, "a command ran without the gate")
        try shell.typeLine(Self.finger)
        try shell.waitForPrompt()
        let id = try #require(try shell.shellSessions().first, "no shell session in the store")
        try world.gateEvents(["will-resign-active", "did-enter-background"], session: id)
        try shell.typeLine(Self.mark(world, "ran", "LOCKED"))
        try Self.waitForGate(shell)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!Self.lines(world, "ran").contains("LOCKED"), "the hooks are missing")
    }

    /// How many processes have both strings in their command line.
    static func processes(containing first: String, and second: String) -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { entry in
            guard Int(entry) != nil, let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { return false }
            let line = String(decoding: data.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
            return line.contains(first) && line.contains(second)
        }.count
    }

    // MARK: - Item 9: a deleted store is damage for a shell whose snippet carries its id

    /// The snippet generated once into a file (README's install) names the store's id: after the
    /// store's directory is removed, a new interactive shell meets the passcode-only gate, runs
    /// nothing before the passcode, and no new store with the lock off appears.
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

    // MARK: - Item 2: a new shell never sees an older shell's state

    @Test(arguments: shells, ["exec true", "SIGKILL"])
    func aNewShellOnTheSameTerminalNeverInheritsAnUnlockedSession(shell name: String, ending: String) throws {
        let world = try Self.lockedWorld()
        let shell = try ShellHarness(world: world, shell: name, runs: 2)
        defer { shell.shutdown() }
        try shell.start()
        try Self.unlock(shell)
        let first = try #require(try shell.shellSessions().first)
        #expect(try world.gateSessionStatus(first).map { $0.state == "active" && !$0.locked } == true)
        let tty = try shell.tmux(["display-message", "-p", "-t", "sh", "#{pane_tty}"]).stdout
        // The first shell ends without its exit hook: its row stays active and unlocked.
        if ending == "SIGKILL" {
            let pid = try #require(pid_t(try shell.tmux(["display-message", "-p", "-t", "sh", "#{pane_pid}"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)))
            // The pane runs a bash -m that runs the shells: kill the interactive shell, its child.
            let children = try String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)
            let child = try #require(children.split(separator: " ").first.flatMap { pid_t($0) })
            #expect(kill(child, SIGKILL) == 0)
        } else {
            try shell.typeLine("exec true")
        }
        // The second shell on the same terminal asks before it shows a prompt.
        try Self.waitForGate(shell)
        #expect(try shell.tmux(["display-message", "-p", "-t", "sh", "#{pane_tty}"]).stdout == tty)
        #expect(!(try shell.atPrompt()))
        try shell.typeLine(Self.mark(world, "ran", "TYPED"))
        Thread.sleep(forTimeInterval: 0.5)
        #expect(Self.lines(world, "ran").isEmpty, "the new shell ran a command without the gate")
        let sessions = try shell.shellSessions()
        #expect(sessions.count == 2 && sessions[0] != sessions[1], "\(sessions)")
        try shell.typeLine(Self.finger)
        try shell.waitForPrompt()
    }

    // MARK: - Item 4: killing the gate never lets a command run

    @Test(arguments: shells, [SIGTERM, SIGKILL])
    func killingTheGateBringsItBackAndRunsNothing(shell name: String, signal: Int32) throws {
        let world = try Self.lockedWorld()
        let shell = try ShellHarness(world: world, shell: name)
        defer { shell.shutdown() }
        try shell.start()
        // The gate before the first prompt: killed, it comes back; no prompt shows meanwhile.
        try Self.waitForGate(shell)
        let id = try #require(try shell.shellSessions().first)
        let first = try shell.gatePID(id)
        #expect(kill(first, signal) == 0)
        let second = try shell.gatePID(id, excluding: first)
        try Self.waitForGate(shell)
        #expect(!(try shell.atPrompt()))
        try shell.typeLine(Self.finger)
        try shell.waitForPrompt()

        // The gate before a typed command: killed, it comes back, and the command waits for it.
        try world.gateEvents(["will-resign-active", "did-enter-background"], session: id)
        try shell.typeLine(Self.mark(world, "ran", "TYPED"))
        try Self.waitForGate(shell)
        let third = try shell.gatePID(id, excluding: second)
        #expect(kill(third, signal) == 0)
        try shell.waitForScreen(containing: "it starts again")
        _ = try shell.gatePID(id, excluding: third)
        try Self.waitForGate(shell)
        #expect(Self.lines(world, "ran").isEmpty, "the command ran after the gate was killed")
        #expect(try world.gateSessionStatus(id)?.locked == true)
        try shell.typeLine(Self.finger)
        try gateEventually("the command to run after the unlock") { Self.lines(world, "ran") == ["TYPED"] }
        try shell.waitForPrompt()
        // The shell's terminal works as before: its own Ctrl-C ends a foreground job.
        try shell.typeLine("sleep 30")
        Thread.sleep(forTimeInterval: 0.3)
        try shell.keys("C-c")
        try shell.typeLine(Self.mark(world, "ran", "AFTER-CTRL-C"))
        try gateEventually("Ctrl-C to end the job") { Self.lines(world, "ran") == ["TYPED", "AFTER-CTRL-C"] }
    }

    // MARK: - Item 5: Enter and Ctrl-C at once never skip the idle lock

    @Test(arguments: shells)
    func enterAndCtrlCAtOnceNeverSkipTheIdleLock(shell name: String) throws {
        let world = try Self.lockedWorld(configure: [("idle-seconds", "1")])
        let shell = try ShellHarness(world: world, shell: name)
        defer { shell.shutdown() }
        try shell.start()
        try Self.unlock(shell)
        var skipped: [Int] = []
        for attempt in 0..<30 {
            // Idle at the prompt for longer than idle-seconds, then a command, Enter and Ctrl-C at
            // once, or Ctrl-C 0-5 ms after Enter (while the shell starts on the line).
            Thread.sleep(forTimeInterval: 1.2)
            let word = "RAN-\(attempt)"
            try shell.typeAndInterrupt(Self.mark(world, "ran", word), delay: [nil, 0, 1, 2, 3, 5][attempt % 6])
            // Whatever the Ctrl-C cut short, the gate comes (before the command, or at the prompt after).
            do {
                try gateEventually("the idle gate", timeout: 8) { try shell.screen().contains("Password:") }
            } catch {
                skipped.append(attempt)
                try shell.waitForPrompt()
                continue
            }
            #expect(!Self.lines(world, "ran").contains(word), "attempt \(attempt): the command ran before the gate")
            // The Ctrl-C may have reached the gate's line, which that line then cancels: answer again.
            for retry in 0..<3 {
                try shell.typeLine(Self.finger)
                do {
                    try shell.waitForPrompt(timeout: 4)
                    break
                } catch where retry < 2 {}
            }
        }
        #expect(skipped.isEmpty, "the idle lock was skipped in attempts \(skipped)")
    }

    // MARK: - Item 6: the user's own traps and hooks

    @Test(arguments: ["string", "array"])
    func bashKeepsTheUsersTrapsAndPromptCommand(promptCommand: String) throws {
        let world = try Self.lockedWorld()
        let file = { (name: String) in "'\(world.directory.appendingPathComponent(name).path)'" }
        let prompt = promptCommand == "array"
            ? "PROMPT_COMMAND=('echo A >> \(file("prompt"))' 'echo B >> \(file("prompt"))')"
            : "PROMPT_COMMAND='echo S >> \(file("prompt"))'"
        let user = """
            trap 'echo USER-EXIT >> \(file("exit"))' EXIT
            user_debug=0
            trap 'user_debug=$((user_debug + 1))' DEBUG
            \(prompt)
            """
        let shell = try ShellHarness(world: world, shell: "bash", userLines: user)
        defer { shell.shutdown() }
        try shell.start()
        // The gate runs (a new shell is locked), and so do the user's prompt commands.
        try Self.unlock(shell)
        let id = try #require(try shell.shellSessions().first)
        // The user's DEBUG trap still counts the commands typed.
        for count in 1...2 {
            try shell.typeLine("echo \"debug-count $user_debug\" >> \(file("ran"))")
            try gateEventually("the command") { Self.lines(world, "ran").count == count }
            try shell.waitForPrompt()
        }
        let counts = Self.lines(world, "ran").compactMap { Int($0.split(separator: " ").last ?? "") }
        #expect(counts.count == 2 && counts[1] > counts[0], "the user's DEBUG trap stopped: \(Self.lines(world, "ran"))")
        let expected = promptCommand == "array" ? ["A", "B"] : ["S"]
        #expect(Array(Self.lines(world, "prompt").suffix(expected.count)) == expected, "\(Self.lines(world, "prompt"))")
        // The gate still guards commands, after the user's DEBUG trap was composed with ours.
        try world.gateEvents(["will-resign-active", "did-enter-background"], session: id)
        try shell.typeLine("echo LOCKED >> \(file("ran"))")
        try Self.waitForGate(shell)
        #expect(!Self.lines(world, "ran").contains("LOCKED"))
        try shell.typeLine(Self.finger)
        try gateEventually("the command after the unlock") { Self.lines(world, "ran").contains("LOCKED") }
        try shell.waitForPrompt()
        // Exit runs both EXIT traps: the user's, and ours (the session ends).
        try shell.typeLine("exit")
        try gateEventually("the user's EXIT trap") { Self.lines(world, "exit") == ["USER-EXIT"] }
        try gateEventually("the session to end") { try world.gateSessionStatus(id)?.state == "notRunning" }
    }

    @Test func zshKeepsTheUsersHooksAndTraps() throws {
        let world = try Self.lockedWorld()
        let file = { (name: String) in "'\(world.directory.appendingPathComponent(name).path)'" }
        let user = """
            autoload -Uz add-zsh-hook
            user_precmd() { echo PRECMD >> \(file("hooks")); }
            user_preexec() { echo "PREEXEC $1" >> \(file("hooks")); }
            user_exit() { echo ZSHEXIT >> \(file("exit")); }
            add-zsh-hook precmd user_precmd
            preexec_functions+=(user_preexec)
            zshexit_functions+=(user_exit)
            trap 'echo TRAP-EXIT >> \(file("exit"))' EXIT
            """
        let shell = try ShellHarness(world: world, shell: "zsh", userLines: user)
        defer { shell.shutdown() }
        try shell.start()
        try Self.unlock(shell)
        let id = try #require(try shell.shellSessions().first)
        #expect(Self.lines(world, "hooks").contains("PRECMD"))
        try shell.typeLine("echo RAN >> \(file("ran"))")
        try gateEventually("the command") { Self.lines(world, "ran") == ["RAN"] }
        #expect(Self.lines(world, "hooks").contains { $0.hasPrefix("PREEXEC echo RAN") }, "\(Self.lines(world, "hooks"))")
        try shell.waitForPrompt()
        try world.gateEvents(["will-resign-active", "did-enter-background"], session: id)
        try shell.typeLine("echo LOCKED >> \(file("ran"))")
        try Self.waitForGate(shell)
        #expect(Self.lines(world, "ran") == ["RAN"])
        try shell.typeLine(Self.finger)
        try gateEventually("the command after the unlock") { Self.lines(world, "ran") == ["RAN", "LOCKED"] }
        try shell.waitForPrompt()
        try shell.typeLine("exit")
        try gateEventually("the user's exit hook and trap") { Set(Self.lines(world, "exit")) == ["ZSHEXIT", "TRAP-EXIT"] }
        try gateEventually("the session to end") { try world.gateSessionStatus(id)?.state == "notRunning" }
    }
}
