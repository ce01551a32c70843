import Foundation
import TestSupport
import Testing

/// The keys and type-ahead at a real terminal: `touchgate gate` and `touchgate auth` in the pane of
/// a tmux server of their own (``PaneTerminal``), against real PAM and a real store.
@Suite(.serialized) struct TerminalKeysTests {
    static let finger = "alice-finger"
    static let passcode = "alice-passcode"
    static let marker = "MARKER-BEHIND-THE-GATE"
    static let cancelled = "Cancelled; the session stays locked. Type again."

    /// A world with the lock on and alice enrolled (unless `enroll` is false), after `configure`,
    /// and session `term-1` launched (so locked); made on a thread of its own (it runs processes).
    static func lockedWorld(configure: [(String, String)] = [], enroll: Bool = true) async throws -> TestEnvironment {
        try await onAThreadOfItsOwn { try makeLockedWorld(configure: configure, enroll: enroll) }
    }

    private static func makeLockedWorld(configure: [(String, String)], enroll: Bool) throws -> TestEnvironment {
        let world = try TestEnvironment()
        for (key, value) in configure {
            let set = try world.run(["config", "set", key, value])
            guard set.status == 0 else { throw TestFailure("config set \(key) failed: \(set)") }
        }
        if enroll {
            try world.enableAndEnroll()
        } else {
            let enable = try world.run(["-S", "enable"], input: passcode + "\n")
            guard enable.status == 0 else { throw TestFailure("enable failed: \(enable)") }
        }
        try world.gateEvents(["did-finish-launching"], session: "term-1")
        return world
    }

    /// A pane that shows the marker, then runs the gate for `term-1` as a child of `sh` (so the
    /// gate is not the terminal's session leader), then says how it ended.
    static func gatePane(_ world: TestEnvironment) async throws -> PaneTerminal {
        try await PaneTerminal(world: world, command: """
            printf '\(marker)\\n'; '\(TestEnvironment.binary)' gate --session term-1; echo "GATE-EXIT=$?"; sleep 600
            """)
    }

    /// A pane with an interactive bash (job control, its own terminal modes) at prompt `READY$ `.
    static func bashPane(_ world: TestEnvironment) async throws -> PaneTerminal {
        let pane = try await PaneTerminal(world: world, command: "PS1='READY$ ' exec /bin/bash --norc --noprofile -i")
        try await pane.waitForScreen(containing: "READY$")
        return pane
    }

    /// Waits for the line `AUTH-EXIT=N` that `echo "AUTH-EXIT=$?"` prints (not the command line
    /// that holds it) and returns N.
    static func waitForExit(_ pane: PaneTerminal) async throws -> String {
        var status = ""
        try await pane.waitForScreen("the exit status") { screen in
            let line = screen.split(separator: "\n").first { $0.hasPrefix("AUTH-EXIT=") }
            status = line.map { String($0.dropFirst("AUTH-EXIT=".count)).trimmingCharacters(in: .whitespaces) } ?? ""
            return line != nil
        }
        return status
    }

    /// How many audit rows have `factor` and `outcome` (`sqlite3` run on a thread of its own).
    static func count(_ world: TestEnvironment, _ factor: String, _ outcome: String) async throws -> Int {
        try await onAThreadOfItsOwn { try world.gateAuditCount(factor: factor, outcome: outcome) }
    }

    /// Whether `term-1` is locked, from `touchgate --json status` run on a thread of its own.
    static func locked(_ world: TestEnvironment) async throws -> Bool? {
        try await onAThreadOfItsOwn { try world.gateSessionStatus("term-1")?.locked }
    }

    // MARK: - Item 7: keys

    /// With ISIG off, Ctrl-C, Ctrl-\ and Ctrl-Z are bytes: each cancels the line at once (no Enter),
    /// says so on the cover, and the right secret typed after them unlocks.
    @Test func ctrlCCtrlBackslashAndCtrlZCancelTheLineAtOnceAtTheGate() async throws {
        let world = try await Self.lockedWorld()
        let pane = try await Self.gatePane(world)
        defer { pane.shutdown() }
        try await pane.waitForScreen(containing: "Password:")
        let gate = try await pane.touchgatePID()
        for (index, key) in ["C-c", "C-\\", "C-z"].enumerated() {
            try await pane.waitUntilPrompting(gate)
            try await pane.type("half-typed", literal: true)
            try await pane.type(key)
            try await eventually("\(key) to cancel the line without Enter") {
                try await Self.count(world, "biometric", "userCancel") == index + 1
            }
            try await pane.waitUntilPrompting(gate)
            let screen = try await pane.waitForScreen(containing: Self.cancelled)
            #expect(!screen.contains("half-typed") && !screen.contains(Self.marker), "\(screen)")
            #expect(try await Self.locked(world) == true)
        }
        // The half-typed lines never reached PAM as answers.
        #expect(try await Self.count(world, "biometric", "authenticationFailed") == 0)
        try await pane.typeLine(Self.finger)
        try await pane.waitForScreen(containing: "GATE-EXIT=0")
        #expect(try await Self.locked(world) == false)
    }

    /// Backspace, Ctrl-U and Ctrl-W edit the gate's own line (its input is not canonical).
    @Test func theGateEditsItsLine() async throws {
        let world = try await Self.lockedWorld()
        let pane = try await Self.gatePane(world)
        defer { pane.shutdown() }
        try await pane.waitForScreen(containing: "Password:")
        let gate = try await pane.touchgatePID()
        try await pane.waitUntilPrompting(gate)
        try await pane.type("wrong words", literal: true)
        try await pane.type("C-w", "C-u")
        try await pane.type("alice-fingerXY", literal: true)
        try await pane.type("BSpace", "BSpace", "Enter")
        try await pane.waitForScreen(containing: "GATE-EXIT=0")
        #expect(try await Self.count(world, "biometric", "authenticationFailed") == 0)
    }

    /// Ctrl-\ in `auth` is a cancel like Ctrl-C: exit 2 (not 131, no core), the try settled.
    @Test func ctrlBackslashCancelsAuthAndSettlesTheTry() async throws {
        let world = try await Self.lockedWorld()
        let pane = try await Self.bashPane(world)
        defer { pane.shutdown() }
        try await pane.typeLine("'\(TestEnvironment.binary)' auth --session term-2; echo \"AUTH-EXIT=$?\"")
        let auth = try await pane.touchgatePID()
        try await pane.waitUntilPrompting(auth)
        try await pane.type("C-\\")
        #expect(try await Self.waitForExit(pane) == "2")
        #expect(try await pane.screen().contains("(userCancel)"))
        #expect(try await onAThreadOfItsOwn { try world.sqlite("SELECT count(*) FROM audit WHERE outcome = 'pending'") } == "0")
        #expect(try await Self.count(world, "biometric", "userCancel") == 1)
    }

    /// Ctrl-Z stops `auth` with the terminal's modes given back; after `fg` the prompt is shown
    /// again, echo is still off, and the answer typed then is read.
    @Test func afterCtrlZAndFgAuthAsksAgainWithEchoOff() async throws {
        let world = try await Self.lockedWorld()
        let pane = try await Self.bashPane(world)
        defer { pane.shutdown() }
        try await pane.typeLine("'\(TestEnvironment.binary)' auth --session term-2")
        let auth = try await pane.touchgatePID()
        try await pane.waitUntilPrompting(auth)
        try await pane.type("C-z")
        try await pane.waitForScreen(containing: "Stopped")
        // The shell has its terminal back: what it echoes shows.
        try await pane.type("echo SHELL-ECHOES", literal: true)
        try await pane.waitForScreen(containing: "echo SHELL-ECHOES")
        try await pane.type("C-u")
        let prompts = try await pane.screen().components(separatedBy: "Password:").count
        try await pane.typeLine("fg")
        try await pane.waitForScreen("the prompt shown again after fg") { $0.components(separatedBy: "Password:").count > prompts }
        try await pane.waitUntilPrompting(auth)
        try await pane.type(Self.finger, literal: true)
        try await Task.sleep(for: .milliseconds(300))
        #expect(!(try await pane.screen()).contains(Self.finger), "the answer was echoed after fg")
        try await pane.type("Enter")
        try await eventually("auth to end") { kill(auth, 0) != 0 }
        try await pane.typeLine("echo \"AUTH-EXIT=$?\"")
        #expect(try await Self.waitForExit(pane) == "0")
    }

    // MARK: - Item 13: type-ahead

    /// Typed while the (slow) biometric stack runs at the gate: not shown, and not the next answer,
    /// though it is the right finger.
    @Test func typeAheadWhilePAMRunsAtTheGateIsNeitherShownNorAnswered() async throws {
        let world = try await Self.lockedWorld(configure: [("biometric-service", "touchgate-gated")])
        try world.holdCalls("touchgate-gated")
        let calls = world.calls("touchgate-gated")
        let successes = try await Self.count(world, "biometric", "success")
        let pane = try await Self.gatePane(world)
        defer { pane.shutdown() }
        try await pane.waitForScreen(containing: "this session is locked")
        // The stack holds the try before it prompts: the try is admitted and PAM runs.
        try await eventually("the first try to reach PAM") { world.calls("touchgate-gated") == calls + 1 }
        let gate = try await pane.touchgatePID()
        try await pane.typeLine(Self.finger)
        try await pane.type("TYPED-AHEAD", literal: true)
        // A round trip through the tmux server: the keys have reached the pane before PAM goes on.
        _ = try await pane.screen()
        try world.release("touchgate-gated")
        try await pane.waitForScreen(containing: "Password:")
        try await pane.waitUntilPrompting(gate)
        let screen = try await pane.screen()
        #expect(!screen.contains(Self.finger) && !screen.contains("TYPED-AHEAD"), "type-ahead shows:\n\(screen)")
        #expect(try await Self.locked(world) == true, "type-ahead became the answer")
        #expect(try await Self.count(world, "biometric", "success") == successes)
        try await pane.typeLine(Self.finger)
        try await pane.waitForScreen(containing: "GATE-EXIT=0")
    }

    /// The same in `auth` on a terminal: echo is off from the first prompt to the exit, also while
    /// PAM runs its next try, and what was typed before the next prompt is discarded.
    @Test func typeAheadWhilePAMRunsInAuthIsNeitherShownNorAnswered() async throws {
        let world = try await Self.lockedWorld(configure: [("biometric-service", "touchgate-gated")])
        let pane = try await Self.bashPane(world)
        defer { pane.shutdown() }
        try world.holdCalls("touchgate-gated")
        let calls = world.calls("touchgate-gated")
        try await pane.typeLine("'\(TestEnvironment.binary)' auth --policy biometrics --session term-2; echo \"AUTH-EXIT=$?\"")
        let auth = try await pane.touchgatePID()
        try await eventually("the first try to reach PAM") { world.calls("touchgate-gated") == calls + 1 }
        try world.release("touchgate-gated")
        try await pane.waitForScreen(containing: "Password:")
        try await pane.waitUntilPrompting(auth)
        try await pane.typeLine("not-the-finger")
        // The second try: the stack holds it before it prompts; typed meanwhile, this must not count.
        try await eventually("the second try to reach PAM") { world.calls("touchgate-gated") == calls + 2 }
        try await pane.typeLine(Self.finger)
        try await pane.type("TYPED-AHEAD", literal: true)
        _ = try await pane.screen()
        try world.release("touchgate-gated")
        try await pane.waitForScreen("the second prompt") { $0.components(separatedBy: "Password:").count == 3 }
        try await pane.waitUntilPrompting(auth)
        let screen = try await pane.screen()
        #expect(!screen.contains(Self.finger) && !screen.contains("TYPED-AHEAD"), "type-ahead shows:\n\(screen)")
        #expect(!screen.contains("\nAUTH-EXIT="), "type-ahead became the answer:\n\(screen)")
        try await pane.typeLine(Self.finger)
        #expect(try await Self.waitForExit(pane) == "0")
    }

    /// During a throttling countdown at the gate, typed text shows nowhere and is not the next
    /// answer; the countdown line is redrawn in place (one line, no stale copies).
    @Test func typeAheadDuringACountdownIsNeitherShownNorAnswered() async throws {
        // Long enough that the countdown is still running when a loaded machine looks at it.
        let world = try await Self.lockedWorld(configure: [("passcode-delays", "0,10")], enroll: false)
        let pane = try await Self.gatePane(world)
        defer { pane.shutdown() }
        try await pane.waitForScreen(containing: "Password:")
        let gate = try await pane.touchgatePID()
        try await pane.waitUntilPrompting(gate)
        try await pane.typeLine("not-the-passcode")
        let screen = try await pane.waitForScreen(containing: "Too many wrong passcodes: next try in")
        #expect(!screen.contains("not-the-passcode"), "\(screen)")
        try await pane.typeLine(Self.passcode)
        try await pane.type("TYPED-AHEAD", literal: true)
        try await pane.waitForScreen("the countdown to go on") { screen in (1...8).contains { screen.contains("next try in \($0) s") } }
        let during = try await pane.screen()
        #expect(!during.contains(Self.passcode) && !during.contains("TYPED-AHEAD"), "type-ahead shows:\n\(during)")
        #expect(during.components(separatedBy: "Too many wrong passcodes").count == 2, "stale countdown lines:\n\(during)")
        try await pane.waitForScreen(containing: "Password:", timeout: 20)
        try await pane.waitUntilPrompting(gate)
        #expect(try await Self.locked(world) == true, "type-ahead became the answer")
        #expect(try await Self.count(world, "passcode", "authenticationFailed") == 1)
        try await pane.typeLine(Self.passcode)
        try await pane.waitForScreen(containing: "GATE-EXIT=0")
    }

    // MARK: - Item 18: a hang-up is a system cancel

    /// The terminal goes away under a waiting gate (not its session leader, so no SIGHUP comes):
    /// the try is logged systemCancel, not userCancel, and the session stays locked.
    @Test func aHangUpAtTheGateIsLoggedSystemCancel() async throws {
        let world = try await Self.lockedWorld()
        let pane = try await Self.gatePane(world)
        try await pane.waitForScreen(containing: "Password:")
        let gate = try await pane.touchgatePID()
        try await pane.waitUntilPrompting(gate)
        pane.shutdown()
        try await eventually("the gate to end after its terminal hung up") { kill(gate, 0) != 0 }
        #expect(try await Self.count(world, "biometric", "systemCancel") == 1)
        #expect(try await Self.count(world, "biometric", "userCancel") == 0)
        #expect(try await Self.locked(world) == true)
    }
}
