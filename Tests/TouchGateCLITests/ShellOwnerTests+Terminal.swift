import Foundation
import Testing

/// `touchgate shell` as a terminal emulator's command: the owner is the program of a
/// pseudo-terminal the test holds itself (no tmux in between), and the test reads every byte the
/// owner writes to it.
extension ShellOwnerTests {
    /// Waits until the bytes the owner wrote after `offset` contain `text`; returns them.
    @discardableResult
    static func waitFor(_ text: String, after offset: Int, on terminal: PseudoTerminal, timeout: TimeInterval = 30) throws -> Substring {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            terminal.pump()
            let since = terminal.screen.dropFirst(offset)
            if since.contains(text) { return since }
            guard Date() < deadline, terminal.isRunning else {
                throw TestFailure("'\(text)' never came (running: \(terminal.isRunning)); the bytes since \(offset): \(String(since).debugDescription); all: \(terminal.screen.suffix(3000).debugDescription)")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Types `line` and Enter, then waits until what came after it contains `text`; returns the
    /// offset of what came after the line.
    @discardableResult
    static func type(_ line: String, thenWaitFor text: String, on terminal: PseudoTerminal) throws -> Int {
        let typed = terminal.screen.count
        terminal.type(line + "\r")
        try waitFor(text, after: typed, on: terminal)
        return typed
    }

    /// Types the finger at the gate's prompt (shown after `offset`), then waits for the shell's
    /// prompt; returns the offset of what came after the finger.
    @discardableResult
    static func unlockDirect(_ terminal: PseudoTerminal, after offset: Int) throws -> Int {
        try waitFor("Password:", after: offset, on: terminal)
        return try type(finger, thenWaitFor: OwnerHarness.prompt, on: terminal)
    }

    /// `touchgate shell` running bash (a prompt of the harness's, no history file) as the program
    /// of a pty the test owns, as a terminal emulator starts it: no tmux around it.
    static func ownerOnOwnPTY(_ world: TestEnvironment) throws -> PseudoTerminal {
        let rc = world.directory.appendingPathComponent("owner.bashrc").path
        try "PS1='\(OwnerHarness.prompt) '\nHISTFILE=/dev/null\n".write(toFile: rc, atomically: true, encoding: .utf8)
        var environment = world.environment
        environment["TERM"] = "xterm"
        environment.removeValue(forKey: "TMUX")
        environment.removeValue(forKey: "TMUX_PANE")
        return try PseudoTerminal([TestEnvironment.binary, "shell", "--", "/bin/bash", "--noprofile", "--rcfile", rc, "-i"],
                                  environment: environment)
    }

    /// The owner on the test's own pty: the cover goes up at a lock from outside and nothing the
    /// program writes meanwhile reaches the terminal; after the unlock the screen comes back
    /// and the lines the program scrolled off while locked are in the terminal's scrollback
    /// (written before the screen is drawn, oldest first), and typing reaches the shell again.
    @Test func asTheTerminalsCommandTheCoverHoldsAndTheScreenAndScrollbackComeBack() throws {
        let world = try Self.lockedWorld()
        let terminal = try Self.ownerOnOwnPTY(world)
        // A new session asks before the shell starts.
        try Self.waitFor(Self.gateTitle, after: 0, on: terminal)
        #expect(!terminal.screen.contains(OwnerHarness.prompt))
        try Self.unlockDirect(terminal, after: 0)
        let session = try world.sqlite("SELECT session FROM shell_owners LIMIT 1")
        let go = Self.markPath(world, "direct-go")
        // Waits for the test's signal, then writes 60 numbered lines computed inside (the
        // screen has 24 rows: most scroll off while locked).
        terminal.type("while [ ! -e '\(go)' ]; do sleep 0.05; done; for i in $(seq 1 60); do printf 'LOCKED-%03d\\n' \"$i\"; done\r")
        Thread.sleep(forTimeInterval: 0.3)
        let beforeLock = terminal.screen.count
        try Self.lock(world, session)
        // The lock's answer came once the cover was up: it is in the bytes already.
        terminal.pump()
        #expect(terminal.screen.dropFirst(beforeLock).contains("\u{1B}[2J"), "no cover when the lock was answered")
        try Self.waitFor(Self.gateTitle, after: beforeLock, on: terminal)
        try Self.waitFor("Password:", after: beforeLock, on: terminal)
        _ = FileManager.default.createFile(atPath: go, contents: Data())
        // The program writes its lines now (into the screen model only): give it the time to.
        Thread.sleep(forTimeInterval: 1)
        terminal.pump()
        #expect(!terminal.screen.dropFirst(beforeLock).contains("LOCKED-0"), "the locked session's output reached the terminal")
        let beforeUnlock = try Self.unlockDirect(terminal, after: beforeLock)
        try Self.waitFor("LOCKED-060", after: beforeUnlock, on: terminal)
        Thread.sleep(forTimeInterval: 0.2)
        terminal.pump()
        let after = String(terminal.screen.dropFirst(beforeUnlock))
        // Every line once, in order: the first ones into the scrollback, the last ones on the screen.
        var position = after.startIndex
        for index in 1...60 {
            let line = String(format: "LOCKED-%03d", index)
            let found = try #require(after.range(of: line, range: position..<after.endIndex), "\(line) missing: \(after.debugDescription)")
            position = found.upperBound
        }
        #expect(after.contains("\u{1B}[1;1H\u{1B}[2K\u{1B}[0mLOCKED-001\u{1B}[0m\u{1B}[24;1H\n"), "LOCKED-001 not written into the scrollback")
        // Keys reach the shell again.
        let typed = terminal.screen.count
        terminal.type("echo TYPED-$((3*5))\r")
        try Self.waitFor("TYPED-15", after: typed, on: terminal)
        terminal.type("exit 4\r")
        #expect(try terminal.wait() == 4)
    }

    /// A screen lock (logind's Lock for the user's session, as `loginctl lock-session` or a
    /// desktop locker sends it) covers the owner's terminal before the watcher goes on, and the
    /// Unlock that follows uncovers nothing: only the gate does.
    @Test func aScreenLockCoversTheTerminalAndLogindsUnlockDoesNotUncoverIt() throws {
        let (bus, world) = try Self.watchedWorld()
        let owner = try OwnerHarness(world: world, shell: "bash")
        defer { owner.shutdown() }
        try Self.startUnlocked(owner)
        try owner.typeLine("echo VISIBLE-$((6*7))")
        try owner.waitForScreen(containing: "VISIBLE-42")
        let watcher = try WatchTests.startWatcher(world, bus)
        defer { watcher.signal(SIGTERM) }
        try bus.sessionSignal("c1", "Lock")
        try Self.waitForGate(owner)
        #expect(!(try owner.screen().contains("VISIBLE-42")))
        try bus.sessionSignal("c1", "Unlock")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try owner.screen().contains(Self.gateTitle))
        #expect(!(try owner.screen().contains("VISIBLE-42")))
        try Self.unlock(owner)
        try owner.waitForScreen(containing: "VISIBLE-42")
    }

    /// Inside a tmux pane (`TMUX` set) `touchgate shell` just runs the program: the client lock
    /// is the lock there. No gate, no owner, though the lock is on.
    @Test func insideATmuxPaneTheProgramRunsDirectly() throws {
        let world = try Self.lockedWorld()
        var environment = world.environment
        environment["TERM"] = "xterm"
        environment["TMUX"] = "/tmp/tmux-0/default,1,0"
        let terminal = try PseudoTerminal([TestEnvironment.binary, "shell", "--", "/bin/sh", "-c",
                                           "echo \"DIRECT-$((2+3))-${TOUCHGATE_SHELL_SESSION:-none}\"; exit 6"],
                                          environment: environment)
        #expect(try terminal.wait() == 6)
        #expect(terminal.screen.contains("DIRECT-5-none"), "\(terminal.screen)")
        #expect(!terminal.screen.contains(Self.gateTitle))
        #expect(try world.sqlite("SELECT count(*) FROM shell_owners") == "0")
    }

    /// With no program, `touchgate shell` runs the user's shell from the password database
    /// (`$SHELL` only when that one cannot run), after the gate.
    @Test func withNoProgramTheShellIsTheUsersFromThePasswordDatabase() throws {
        let world = try Self.lockedWorld()
        var environment = world.environment
        environment["TERM"] = "xterm"
        environment["SHELL"] = "/usr/bin/dash"
        environment.removeValue(forKey: "TMUX")
        let database = getpwuid(getuid()).flatMap { $0.pointee.pw_shell.map { String(cString: $0) } } ?? ""
        let usable = database.hasPrefix("/") && access(database, X_OK) == 0
            && !(database.split(separator: "/").last ?? "").hasPrefix("touchgate")
        let expected = usable ? database : "/usr/bin/dash"
        let terminal = try PseudoTerminal([TestEnvironment.binary, "shell"], environment: environment)
        try Self.waitFor("Password:", after: 0, on: terminal)
        let typed = terminal.screen.count
        terminal.type(Self.finger + "\r")
        try gateEventually("the gate gone") {
            terminal.pump()
            return terminal.screen.dropFirst(typed).contains("\u{1B}[?1049l")
        }
        Thread.sleep(forTimeInterval: 0.5)
        let before = terminal.screen.count
        terminal.type("echo \"SHELL-IS-$((1+1))-$(readlink -f /proc/$$/exe)\"\r")
        let real = URL(fileURLWithPath: expected).resolvingSymlinksInPath().path
        try Self.waitFor("SHELL-IS-2-\(real)", after: before, on: terminal)
        terminal.type("exit\r")
        _ = try terminal.wait()
    }

    /// The gate the owner runs behaves as the man page says: Enter at the biometric prompt falls
    /// back to the passcode, a wrong passcode is refused (the session stays covered, nothing
    /// starts), the right one unlocks.
    @Test func atTheOwnersGateEnterFallsBackToThePasscode() throws {
        let world = try Self.lockedWorld()
        let terminal = try Self.ownerOnOwnPTY(world)
        try Self.waitFor("Password:", after: 0, on: terminal)
        try Self.fallBackToThePasscode(on: terminal)
        try Self.type("not-the-passcode", thenWaitFor: "Password:", on: terminal)
        #expect(!terminal.screen.contains(OwnerHarness.prompt), "a wrong passcode started the shell")
        try Self.type(TestEnvironment.passcode["alice"]!, thenWaitFor: OwnerHarness.prompt, on: terminal)
        terminal.type("exit 0\r")
        #expect(try terminal.wait() == 0)
    }

    /// Enter at the gate's biometric prompt, then the passcode's prompt is up.
    static func fallBackToThePasscode(on terminal: PseudoTerminal) throws {
        let offset = try type("", thenWaitFor: "(passcode for", on: terminal)
        try waitFor("Password:", after: offset, on: terminal)
    }

    /// The owner's gate keeps the store's throttle: after the second wrong passcode it counts down
    /// (the shell still not started), says when the wait is over, and only then takes the passcode.
    @Test func atTheOwnersGateWrongPasscodesAreThrottledAsTheManPageSays() throws {
        let world = try Self.lockedWorld([("passcode-delays", "0,0,2")])
        let terminal = try Self.ownerOnOwnPTY(world)
        try Self.waitFor("Password:", after: 0, on: terminal)
        try Self.fallBackToThePasscode(on: terminal)
        var offset = try Self.type("wrong-1", thenWaitFor: "Wrong passcode; 1 try left before a wait of 2 s.", on: terminal)
        try Self.waitFor("Password:", after: offset, on: terminal)
        offset = try Self.type("wrong-2", thenWaitFor: "Too many wrong passcodes: next try in", on: terminal)
        try Self.waitFor("The wait is over: type the passcode.", after: offset, on: terminal)
        try Self.waitFor("Password:", after: offset, on: terminal)
        #expect(!terminal.screen.contains(OwnerHarness.prompt), "the shell started during the throttle")
        #expect(try world.gateAuditCount(factor: "passcode", outcome: "authenticationFailed") == 2)
        // The evaluation starts again with the biometric prompt (the test stack's finger is a
        // question): Enter, then the passcode.
        try Self.fallBackToThePasscode(on: terminal)
        try Self.type(TestEnvironment.passcode["alice"]!, thenWaitFor: OwnerHarness.prompt, on: terminal)
        terminal.type("exit 0\r")
        #expect(try terminal.wait() == 0)
    }
}
