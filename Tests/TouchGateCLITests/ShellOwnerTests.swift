import Foundation
import Testing
import TouchGate

/// `touchgate shell` (the terminal owner) in a real pseudo-terminal with real programs (bash,
/// zsh, fish, dash, vim), typed at as a person at the keyboard would, against real PAM and a
/// real store: a locked session runs nothing typed at it, by any key or line-editor feature,
/// shows nothing its program writes, and comes back as it is after the unlock.
@Suite(.serialized) struct ShellOwnerTests {
    static let finger = "alice-finger"
    static let gateTitle = "touchgate: this session is locked"
    static let shells = ["bash", "zsh", "fish", "dash"]

    /// A world with the lock on and alice enrolled, lockouts relaxed (the tests type many answers).
    static func lockedWorld(_ settings: [(String, String)] = []) throws -> TestEnvironment {
        let world = try TestEnvironment()
        try world.gateRelaxLockout()
        for (key, value) in settings { try world.setConfig(key, value) }
        try world.enableAndEnroll()
        return world
    }

    /// A locked world (grace an hour) with a private system bus whose mocked logind has session
    /// `c1` of the user: what the watcher tests start with.
    static func watchedWorld() throws -> (LogindBus, TestEnvironment) {
        let bus = try LogindBus()
        let world = try lockedWorld([("grace-seconds", "3600")])
        world.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        try bus.addSession("c1")
        return (bus, world)
    }

    /// Starts `owner`, unlocks its first gate and waits for the shell's prompt.
    static func startUnlocked(_ owner: OwnerHarness) throws {
        try owner.start()
        try unlock(owner)
        try owner.waitForPrompt()
    }

    static func waitForGate(_ owner: OwnerHarness) throws {
        try owner.waitForScreen(containing: gateTitle)
        try owner.waitForScreen(containing: "Password:")
    }

    /// Unlocks at whichever prompt the gate shows: the finger at the biometric prompt, the
    /// passcode at the passcode prompt (after keys a test typed at the gate chose the fallback).
    static func unlock(_ owner: OwnerHarness) throws {
        try waitForGate(owner)
        for _ in 0..<4 {
            let prompts = try owner.screen().split(separator: "\n").filter { $0.contains("touchgate: unlock ") }
            let passcode = prompts.last?.contains("(passcode for") == true
            try owner.typeLine(passcode ? TestEnvironment.passcode["alice"]! : finger)
            do {
                try gateEventually("the gate gone", timeout: 5) { try !owner.screen().contains(gateTitle) }
                return
            } catch {}
        }
        throw TestFailure("the gate did not unlock; the screen:\n\(try owner.screen())")
    }

    static func markPath(_ world: TestEnvironment, _ name: String) -> String {
        world.directory.appendingPathComponent(name).path
    }

    static func exists(_ world: TestEnvironment, _ name: String) -> Bool {
        FileManager.default.fileExists(atPath: markPath(world, name))
    }

    /// Locks the owner's session from outside, as a lifecycle event does; returns once the
    /// owner answered (the event waits for its acknowledgement).
    static func lock(_ world: TestEnvironment, _ session: String) throws {
        try world.gateEvents(["will-resign-active", "did-enter-background"], session: session)
    }

    // MARK: - A new session asks before the program starts; the exit status is the program's

    @Test(arguments: shells)
    func aNewSessionAsksBeforeTheShellStartsAndTheExitStatusIsTheShells(shell name: String) throws {
        let world = try Self.lockedWorld()
        let owner = try OwnerHarness(world: world, shell: name)
        defer { owner.shutdown() }
        try owner.start()
        try Self.waitForGate(owner)
        let (session, _) = try owner.owner()
        // Named by the terminal it is on, never by the internal id.
        let cover = try owner.screen()
        #expect(cover.contains("session: the shell on /dev/") && !cover.contains(session), "\(cover)")
        // Nothing of the shell runs before the unlock: not even its prompt.
        #expect(!(try owner.screen().contains(OwnerHarness.prompt)))
        try Self.unlock(owner)
        try owner.waitForPrompt()
        #expect(try world.gateSessionStatus(session)?.locked == false)
        let mark = Self.markPath(world, "ran-\(name)")
        try owner.typeLine("echo yes > '\(mark)'")
        try gateEventually("the command to run") { Self.exists(world, "ran-\(name)") }
        try owner.waitForPrompt()
        try owner.typeLine("exit 7")
        let status = try owner.exitStatus()
        let screen = try owner.screen()
        #expect(status == 7, "\(screen)")
        // The owner's row is gone and its session ended.
        #expect(try world.sqlite("SELECT count(*) FROM shell_owners") == "0")
        #expect(try world.gateSessionStatus(session)?.state == "notRunning")
    }

    // MARK: - A locked session runs nothing, by any key

    /// Every key and line-editor trick that ran code at a locked prompt under the shell hooks
    /// (issue 19): with the owner they all go to the gate, and after the unlock none has run.
    @Test(arguments: ["bash", "zsh"])
    func noKeyAtALockedSessionRunsAnything(shell name: String) throws {
        let world = try Self.lockedWorld()
        let owner = try OwnerHarness(world: world, shell: name)
        defer { owner.shutdown() }
        try Self.startUnlocked(owner)
        let (session, _) = try owner.owner()
        try Self.lock(world, session)
        try Self.waitForGate(owner)
        let mark = { (word: String) in "echo \(word) >> '\(Self.markPath(world, "ran"))'" }
        // M-C-e (readline's shell-expand-line) on a command substitution; Tab expansion of one.
        try owner.type("echo $(\(mark("EXPAND")))")
        try owner.keys("M-C-e")
        try owner.keys("Tab")
        try owner.keys("C-u")
        // A subshell with a whole interactive bash, typed as a line.
        try owner.typeLine("(bash --norc -i -c '\(mark("SUBSHELL"))')")
        // A bracketed paste of a command line.
        try owner.keys("Escape", "[", "2", "0", "0", "~")
        try owner.type(mark("PASTE") + "\r")
        try owner.keys("Escape", "[", "2", "0", "1", "~")
        // The signal keys, then a line.
        try owner.keys("C-c", "C-z", "C-\\")
        try owner.typeLine(mark("AFTER-SIGNALS"))
        // The gate is still there, the session still locked, and nothing ran.
        try Self.waitForGate(owner)
        #expect(try world.gateSessionStatus(session)?.locked == true)
        #expect(!Self.exists(world, "ran"))
        try Self.unlock(owner)
        try owner.waitForPrompt()
        // After the unlock the shell got none of those keys: its line is empty, and Enter runs nothing.
        try owner.keys("Enter")
        try owner.waitForPrompt()
        let screen = try owner.screen()
        #expect(!Self.exists(world, "ran"), "\(screen)")
    }

    // MARK: - Output while locked never reaches the terminal; the screen comes back

    @Test func outputWrittenWhileLockedNeverReachesTheTerminalAndIsDrawnBackAfterTheUnlock() throws {
        let world = try Self.lockedWorld()
        let owner = try OwnerHarness(world: world, shell: "bash")
        defer { owner.shutdown() }
        try Self.startUnlocked(owner)
        let (session, _) = try owner.owner()
        let go = Self.markPath(world, "go")
        // Waits for the test's signal, then writes a line computed inside (it is not in what was typed).
        try owner.typeLine("while [ ! -e '\(go)' ]; do sleep 0.05; done; echo SECRET-$((6*7))")
        try Self.lock(world, session)
        try Self.waitForGate(owner)
        let before = owner.rawOutput().count
        _ = FileManager.default.createFile(atPath: go, contents: Data())
        // The program wrote it (its prompt came back, in the screen model): give it the time to.
        Thread.sleep(forTimeInterval: 0.5)
        let raw = String(decoding: owner.rawOutput(), as: UTF8.self)
        #expect(!raw.contains("SECRET-42"), "the locked session's output reached the terminal")
        #expect(owner.rawOutput().count >= before)
        try Self.unlock(owner)
        // Drawn back from the screen model: the line the program wrote while locked, then its prompt.
        let screen = try owner.waitForScreen(containing: "SECRET-42")
        #expect(screen.contains(OwnerHarness.prompt))
        #expect(!screen.contains(Self.gateTitle))
    }

    // MARK: - The size follows the terminal, also while locked

    @Test func aResizeWhileLockedReachesTheProgram() throws {
        let world = try Self.lockedWorld()
        let owner = try OwnerHarness(world: world, shell: "bash")
        defer { owner.shutdown() }
        try owner.start(width: 100, height: 30)
        try Self.unlock(owner)
        try owner.waitForPrompt()
        let (session, _) = try owner.owner()
        try owner.typeLine("stty size")
        try owner.waitForScreen(containing: "30 100")
        try Self.lock(world, session)
        try Self.waitForGate(owner)
        try owner.tmux(["resize-window", "-t", "o", "-x", "72", "-y", "20"])
        try Self.unlock(owner)
        try owner.waitForPrompt()
        try owner.typeLine("clear; stty size")
        try owner.waitForScreen(containing: "20 72")
    }

    // MARK: - The idle lock covers when the time runs out, not at the next key

    @Test func theIdleLockCoversTheTerminalWithoutAKey() throws {
        let world = try Self.lockedWorld([("idle-seconds", "1")])
        let owner = try OwnerHarness(world: world, shell: "bash")
        defer { owner.shutdown() }
        try Self.startUnlocked(owner)
        try owner.typeLine("echo VISIBLE-BEFORE")
        // No key from here on: the cover comes up by itself once idle-seconds pass.
        let screen = try owner.waitForScreen(containing: Self.gateTitle, timeout: 15)
        #expect(!screen.contains("VISIBLE-BEFORE"))
        let (session, _) = try owner.owner()
        #expect(try world.gateSessionStatus(session)?.locked == true)
        try Self.unlock(owner)
        try owner.waitForScreen(containing: "VISIBLE-BEFORE")
    }

    // MARK: - The owner's end ends the session, never shows it

    /// Starts `owner`, unlocks it and returns the pids of the shell inside and of the owner.
    static func unlockedShell(_ owner: OwnerHarness, _ world: TestEnvironment) throws -> (inner: pid_t, owner: pid_t) {
        try startUnlocked(owner)
        let pidFile = markPath(world, "inner-pid")
        try owner.typeLine("echo $$ > '\(pidFile)'")
        // The file exists once the shell opened it, and holds the pid once it wrote the line.
        func innerPID() -> pid_t? {
            (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        try gateEventually("the shell's pid") { innerPID() != nil }
        return (try #require(innerPID()), try owner.owner().1)
    }

    @Test func killingTheOwnerEndsTheInnerSession() throws {
        let world = try Self.lockedWorld()
        let owner = try OwnerHarness(world: world, shell: "bash")
        defer { owner.shutdown() }
        let (inner, ownerPID) = try Self.unlockedShell(owner, world)
        #expect(kill(inner, 0) == 0)
        kill(ownerPID, SIGKILL)
        try gateEventually("the inner shell to end") { kill(inner, 0) != 0 }
    }

    @Test func aHangUpOfTheTerminalEndsTheInnerSession() throws {
        let world = try Self.lockedWorld()
        let owner = try OwnerHarness(world: world, shell: "zsh")
        defer { owner.shutdown() }
        let (inner, ownerPID) = try Self.unlockedShell(owner, world)
        // The pane's terminal closes under the owner (tmux hangs it up).
        try owner.tmux(["kill-pane", "-t", "o"])
        try gateEventually("the inner shell to end") { kill(inner, 0) != 0 }
        try gateEventually("the owner to end") { kill(ownerPID, 0) != 0 }
    }

    // MARK: - A Ctrl-C flood while a session starts

    /// Keys that would interrupt a shell's rc file or the gate, while the owner starts and at its
    /// first gate: keys before the gate are dropped (the owner ignores the signal keys from its
    /// first instruction), and a Ctrl-C at that gate, before anything started, ends the owner
    /// (exit 2, userCancel, one line saying so). No shell ever ran: never an unlocked shell.
    @Test(arguments: ["bash", "zsh"])
    func aCtrlCFloodWhileTheSessionStartsNeverGivesAnUnlockedShell(shell name: String) throws {
        let world = try Self.lockedWorld()
        let owner = try OwnerHarness(world: world, shell: name,
                                     rcLines: "echo started >> '\(Self.markPath(world, "rc-ran"))'")
        defer { owner.shutdown() }
        try owner.start()
        // Once the owner runs (it has registered: its first instruction ignored the signal
        // keys), while it starts the session and its gate. (Keys before its first instruction
        // end it with the default action of the signal: the terminal closes, and no shell ever ran.)
        let (session, _) = try owner.owner()
        for _ in 0..<40 { try owner.keys("C-c", "C-c", "C-\\", "C-z") }
        // The flood may have reached the gate already; else the gate is up, and Ctrl-C there ends the owner.
        try gateEventually("the owner to end at a Ctrl-C at its first gate", timeout: 30) {
            if try owner.ended() { return true }
            try owner.keys("C-c")
            return false
        }
        #expect(try owner.exitStatus() == 2)
        #expect(try owner.screen().contains("touchgate: shell: cancelled at the gate before the session started (exit 2)"))
        #expect(!Self.exists(world, "rc-ran"), "the shell started")
        #expect(try world.gateSessionStatus(session)?.locked != false)
    }

    /// A gate that cannot run (the binary was deleted under the running owner, as an upgrade
    /// does) is not retried once a second for ever: the owner hangs up the program, never shown
    /// again, and ends with 127 and one line.
    @Test func aGateThatCannotRunEndsTheOwnerAndHangsUpTheProgram() throws {
        let world = try Self.lockedWorld()
        let copy = world.directory.appendingPathComponent("touchgate-copy").path
        try TestEnvironment.copyExecutable(TestEnvironment.binary, to: copy)
        let inner = Self.markPath(world, "inner.sh")
        try "#!/bin/sh\necho $$ > '\(Self.markPath(world, "inner-pid"))'\nPS1='\(OwnerHarness.prompt) ' exec /bin/bash --norc -i\n"
            .write(toFile: inner, atomically: true, encoding: .utf8)
        chmod(inner, 0o755)
        let owner = try OwnerHarness(world: world, name: "deleted", paneCommand: "'\(copy)' shell -- '\(inner)'")
        defer { owner.shutdown() }
        try Self.startUnlocked(owner)
        try owner.typeLine("echo SHOWN-BEFORE")
        try owner.waitForScreen(containing: "SHOWN-BEFORE")
        let (session, _) = try owner.owner()
        try FileManager.default.removeItem(atPath: copy)
        try Self.lock(world, session)
        #expect(try owner.exitStatus() == 127)
        let screen = try owner.waitForScreen(containing: "the gate cannot unlock this session (exit 127")
        #expect(!screen.contains("it starts again"), "\(screen)")
        #expect(!screen.contains("SHOWN-BEFORE"), "\(screen)")
        let program = try #require((try? String(contentsOfFile: Self.markPath(world, "inner-pid"), encoding: .utf8))
            .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        try gateEventually("the program hung up") { kill(program, 0) != 0 }
    }

    // MARK: - No process per command

    @Test func theOwnerStartsNoProcessPerCommand() throws {
        let world = try Self.lockedWorld()
        let owner = try OwnerHarness(world: world, shell: "bash")
        defer { owner.shutdown() }
        try Self.startUnlocked(owner)
        let (_, ownerPID) = try owner.owner()
        let before = try world.sqlite("SELECT count(*) FROM audit")
        // The owner's children: the shell only; no gate or hook runs for a command line.
        func children() throws -> [String] {
            let result = try TestEnvironment.execute("/usr/bin/pgrep", ["-P", String(ownerPID)],
                                                     environment: ProcessInfo.processInfo.environment)
            return result.stdout.split(separator: "\n").map(String.init)
        }
        #expect(try children().count == 1)
        for index in 0..<10 {
            try owner.typeLine("echo line-\(index)")
            try owner.waitForScreen(containing: "line-\(index)\n")
            #expect(try children().count == 1)
        }
        #expect(try world.sqlite("SELECT count(*) FROM audit") == before, "a command line reached the store")
    }
    // MARK: - The watcher covers whatever runs: vim at a suspend

    @Test func vimInTheForegroundIsCoveredAtASuspendGetsNoKeyAndComesBack() throws {
        let (bus, world) = try Self.watchedWorld()
        let file = Self.markPath(world, "notes.txt")
        try "VIMTEXT-on-screen\n".write(toFile: file, atomically: true, encoding: .utf8)
        let owner = try OwnerHarness(world: world, name: "vim", program: "exec vim -u NONE -i NONE -N '\(file)'")
        defer { owner.shutdown() }
        try owner.start()
        try Self.unlock(owner)
        try owner.waitForScreen(containing: "VIMTEXT-on-screen")
        let (session, ownerPID) = try owner.owner()
        let watcher = try WatchTests.startWatcher(world, bus)
        defer { watcher.signal(SIGTERM) }
        let rawBefore = owner.rawOutput().count
        try bus.prepareForSleep(true)
        // The watcher releases its inhibitor only once the owner answered that its cover is up.
        try gateEventually("the inhibitor released") { try !bus.touchgateInhibits() }
        #expect(try world.gateSessionStatus(session)?.locked == true)
        #expect(owner.coverDrawn(since: rawBefore, by: ownerPID), "the owner drew no cover")
        try Self.waitForGate(owner)
        #expect(!(try owner.screen().contains("VIMTEXT-on-screen")))
        // Keys for vim go to the gate: a shell escape runs nothing.
        try owner.type(":!touch '\(Self.markPath(world, "vim-ran"))'")
        try owner.keys("Enter")
        try owner.keys("Escape", ":", "q", "!", "Enter")
        try Self.waitForGate(owner)
        #expect(!Self.exists(world, "vim-ran"))
        #expect(!(try owner.ended()))
        try bus.prepareForSleep(false)
        try Self.unlock(owner)
        // vim's screen is back as it is, and vim takes keys again.
        try owner.waitForScreen(containing: "VIMTEXT-on-screen")
        try owner.keys("Escape", ":", "q", "!", "Enter")
        #expect(try owner.exitStatus() == 0)
        #expect(!Self.exists(world, "vim-ran"))
    }
    /// The watcher reaches an owner through its socket in the channel directory (``OwnerChannel/running(uid:directories:)``)
    /// when the store, and with it the store's list of owners, cannot be read: garbage over the
    /// store, its WAL and its index, in place, under the running owner and watcher. The owner
    /// covers its terminal (its own look at the store fails: locked), and the watcher, which
    /// cannot mark anything, ends with 74 after that.
    @Test func theWatcherCoversAnOwnerWhenTheStoreCannotBeRead() throws {
        let (bus, world) = try Self.watchedWorld()
        let owner = try OwnerHarness(world: world, shell: "bash")
        defer { owner.shutdown() }
        try Self.startUnlocked(owner)
        let (_, ownerPID) = try owner.owner()
        #expect(OwnerChannel.running(directories: [FilePath(world.runtimeDirectory).appending("touchgate")]).contains { $0.pid == ownerPID })
        let watcher = try WatchTests.startWatcher(world, bus)
        defer { watcher.signal(SIGTERM) }
        try owner.typeLine("echo VISIBLE-$((40+2))")
        try owner.waitForScreen(containing: "VISIBLE-42")
        let garbage = Data((0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        for suffix in ["", "-wal", "-shm"] {
            let handle = try #require(FileHandle(forWritingAtPath: world.storePath + suffix))
            handle.write(garbage)
            try handle.close()
        }
        #expect(try world.run(["status"]).status != 0, "the store can still be read")
        let rawBefore = owner.rawOutput().count
        try bus.prepareForSleep(true)
        let result = try watcher.wait(timeout: 20)
        #expect(result.status == 74, "\(result)")
        // The owner answered the watcher once its cover was up, before the watcher ended.
        #expect(owner.coverDrawn(since: rawBefore, by: ownerPID), "the owner drew no cover")
        let screen = try owner.waitForScreen(containing: Self.gateTitle)
        #expect(!screen.contains("VISIBLE-42"))
        #expect(try !bus.touchgateInhibits())
    }

    // MARK: - Focus reports drive the lifecycle

    @Test func focusReportsOfTheTerminalAreWillResignActiveAndDidBecomeActive() throws {
        let world = try Self.lockedWorld()
        let owner = try OwnerHarness(world: world, shell: "bash")
        defer { owner.shutdown() }
        try Self.startUnlocked(owner)
        let (session, _) = try owner.owner()
        // The owner asked the terminal for focus reports.
        #expect(owner.rawOutput().range(of: Data("\u{1B}[?1004h".utf8)) != nil)
        // Focus out (CSI O) as the terminal reports it: will-resign-active; the shell never sees it.
        try owner.tmux(["send-keys", "-t", "o", "-H", "1b", "5b", "4f"])
        try gateEventually("will-resign-active") { try world.gateSessionStatus(session)?.state == "inactive" }
        try owner.tmux(["send-keys", "-t", "o", "-H", "1b", "5b", "49"])
        try gateEventually("did-become-active") { try world.gateSessionStatus(session)?.state == "active" }
        #expect(try world.gateSessionStatus(session)?.locked == false)
        try owner.typeLine("echo LINE-$((1+1))")
        let screen = try owner.waitForScreen(containing: "LINE-2")
        #expect(!screen.contains("[O") && !screen.contains("[I"), "a focus report reached the shell: \(screen)")
    }
    // MARK: - The login-shell wrapper

    /// `touchgate-login-shell` (a link to touchgate) started as login starts a login shell
    /// (`argv[0]` `-touchgate-login-shell`): the owner asks before the real shell (from
    /// `~/.config/touchgate/login-shell`) starts, as a login shell; without a terminal
    /// (`ssh host command`) it runs the command in the real shell directly.
    @Test func theLoginShellWrapperRunsTheRealShellUnderTheOwner() throws {
        let world = try Self.lockedWorld()
        let link = world.directory.appendingPathComponent("bin/touchgate-login-shell").path
        try FileManager.default.createDirectory(atPath: (link as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: TestEnvironment.binary)
        let config = world.directory.appendingPathComponent(".config/touchgate")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "/bin/bash\n".write(to: config.appendingPathComponent("login-shell"), atomically: true, encoding: .utf8)
        try "PS1='\(OwnerHarness.prompt) '\n".write(toFile: world.directory.appendingPathComponent(".bash_profile").path,
                                                     atomically: true, encoding: .utf8)
        // Without a terminal: the command runs in the real shell, no owner.
        let direct = try TestEnvironment.execute(link, ["-c", "echo DIRECT-$((2+3)) \"$0\""], environment: world.environment)
        #expect(direct.status == 0 && direct.stdout.contains("DIRECT-5 /bin/bash"), "\(direct)")
        let owner = try OwnerHarness(world: world, name: "login",
                                     paneCommand: "HOME='\(world.directory.path)' bash -c 'exec -a -touchgate-login-shell \"$0\"' '\(link)'")
        defer { owner.shutdown() }
        try owner.start()
        try Self.waitForGate(owner)
        try Self.unlock(owner)
        try owner.waitForPrompt()
        try owner.typeLine("shopt -q login_shell && echo \"LOGIN-$0-$((1+1))\"")
        try owner.waitForScreen(containing: "LOGIN--bash-2")
        try owner.typeLine("exit 3")
        #expect(try owner.exitStatus() == 3)
    }
}
