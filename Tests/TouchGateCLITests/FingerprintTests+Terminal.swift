import Foundation
import TestSupport
import Testing

/// The real reader at a real terminal: the resume gate under a real tmux server (the snippet of
/// `touchgate tmux-conf`, a client in an outer server), and `auth` in a tmux pane. Part of the
/// serialized suite (one reader for all).
extension FingerprintTests {
    static let marker = "MARKER-BEHIND-THE-GATE"

    /// Waits until the stack `service` has been called `count` times and a worker runs it: a new
    /// wait for a finger has begun (its message is then on its way to the screen).
    static func waitForVerify(_ world: TestEnvironment, _ service: String, number count: Int) throws {
        try gateEventually("verify number \(count) of \(service)", timeout: 30) {
            world.calls(service) >= count && workers(service, of: world).count == 1
        }
    }

    /// The gate under tmux, with the reader: a scan unlocks; Ctrl-C during the wait clears the
    /// line and the wait goes on (the session stays locked, and what was typed before it is not
    /// part of the passcode typed after it); a `did-enter-background` ends the wait (appCancel),
    /// the gate asks again at once and the new verify gets the reader; a scan while a passcode is
    /// half typed unlocks, and what was typed is not used and never reaches the session.
    @Test func theGateUnderTmuxUnlocksWithAScan() throws {
        let reader = try FingerprintReader.start()
        try reader.ensureRunning()
        let world = try TestEnvironment.withFingerprintReader(reader)
        let service = Self.service
        // The lock goes on through the reader's stack: the passcode line typed during its wait.
        let enable = try world.run(["-S", "enable"], input: "alice-passcode\n", timeout: 30)
        #expect(enable.status == 0, "\(enable)")
        var verifies = world.calls(service)
        let passcodes = world.calls("touchgate")
        let tmux = try TmuxHarness(world: world)
        defer { tmux.shutdown() }
        try tmux.startInnerSession("s", command: "printf '\(Self.marker)\\n'; exec /bin/sh")
        let id = try tmux.sessionID("s")
        try tmux.attach("s")

        // 1. Ctrl-C while the reader waits, then a scan.
        try tmux.waitForScreen(containing: TmuxGateTests.gateTitle)
        var screen = try tmux.waitForScreen(containing: FingerprintReader.waitingMessage)
        #expect(screen.contains("type your passcode and press Enter"), "\(screen)")
        #expect(!screen.contains(Self.marker), "\(screen)")
        verifies += 1
        try tmux.type("xyz", literal: true)
        try tmux.type("C-c")
        Thread.sleep(forTimeInterval: 0.3)
        try TmuxGateTests.expectGateHolds(tmux, for: 0.2)
        #expect(Self.workers(service, of: world).count == 1, "Ctrl-C does not end the wait")
        try TmuxGateTests.expectLocked(world, id)
        try reader.send("SCAN good")
        try tmux.waitForScreen(containing: Self.marker)
        try TmuxGateTests.expectLocked(world, id, false)
        #expect(world.calls(service) == verifies, "the same wait took the scan")
        #expect(world.calls("touchgate") == passcodes)

        // 2. Locked again: Ctrl-C clears what was typed, so the passcode typed after it unlocks.
        try tmux.inner("lock-session", "-t", "s")
        try Self.waitForVerify(world, service, number: verifies + 1)
        verifies += 1
        try tmux.waitForScreen(containing: FingerprintReader.waitingMessage)
        try tmux.type("xyz", literal: true)
        try tmux.type("C-c")
        try tmux.typeLine("alice-passcode")
        try tmux.waitForScreen(containing: Self.marker)
        try TmuxGateTests.expectLocked(world, id, false)
        #expect(world.calls("touchgate") == passcodes + 1, "one passcode try")
        var status = try world.statusJSON()
        #expect(status["passcodeFailures"] as? Int == 0, "the passcode was not prefixed with what Ctrl-C cleared")
        #expect(status["biometricFailures"] as? Int == 0)

        // 3. Locked again; did-enter-background cancels the wait; the gate's next wait gets the reader;
        //    a scan while the passcode is half typed unlocks.
        try tmux.inner("lock-session", "-t", "s")
        try Self.waitForVerify(world, service, number: verifies + 1)
        verifies += 1
        try tmux.waitForScreen(containing: FingerprintReader.waitingMessage)
        try world.gateEvents(["will-resign-active", "did-enter-background"], session: id)
        try tmux.waitForScreen(containing: "sent to the background (did-enter-background)")
        try Self.waitForVerify(world, service, number: verifies + 1)
        verifies += 1
        screen = try tmux.waitForScreen(containing: FingerprintReader.waitingMessage)
        #expect(!screen.contains("not available"), "the next verify got the reader: \(screen)")
        try TmuxGateTests.expectLocked(world, id)
        try tmux.type("alice-pass", literal: true)
        Thread.sleep(forTimeInterval: 0.3)
        try reader.send("SCAN good")
        try tmux.waitForScreen(containing: Self.marker)
        try TmuxGateTests.expectLocked(world, id, false)
        #expect(world.calls("touchgate") == passcodes + 1, "the half-typed passcode was never checked")
        #expect(world.calls(service) == verifies)
        status = try world.statusJSON()
        #expect(status["passcodeFailures"] as? Int == 0)
        #expect(status["biometricFailures"] as? Int == 0)
        // Nothing typed at the gate reaches the session's shell.
        try tmux.typeLine("echo AFTER-THE-GATE")
        try gateEventually("the shell's answer") { TmuxGateTests.hasLine(try tmux.innerPane("s"), "AFTER-THE-GATE") }
        let pane = try tmux.innerPane("s")
        #expect(!pane.contains("alice-pass") && !pane.contains("xyz"), "\(pane)")
        #expect(Self.workers(service, of: world).isEmpty)
    }

    /// `auth` at a terminal: keys typed while the reader waits, and then the reader fails (a
    /// device error): the reason shows, the passcode prompt asks, and what was typed before it is
    /// discarded, not prefixed to the passcode typed at it.
    @Test func keysTypedBeforeADeviceErrorAreNotPartOfThePasscode() async throws {
        // Made on a thread of its own: starting fprintd and making the world run processes.
        let (reader, world) = try await onAThreadOfItsOwn { () throws -> (FingerprintReader, TestEnvironment) in
            let reader = try FingerprintReader.start()
            try reader.ensureRunning()
            return (reader, try TestEnvironment.withFingerprintReader(reader))
        }
        let passcodes = world.calls("touchgate")
        let pane = try await PaneTerminal(world: world, command: """
            '\(TestEnvironment.binary)' auth; echo "AUTH-EXIT=$?"; sleep 600
            """)
        defer { pane.shutdown() }
        try await pane.waitForScreen(containing: "type your passcode and press Enter", timeout: 20)
        _ = try await pane.waitForScreen(containing: FingerprintReader.waitingMessage)
        try await pane.type("xyz", literal: true)
        // No echo says the keys were read: give the wait a moment to read them.
        try await Task.sleep(for: .milliseconds(300))
        try await onAThreadOfItsOwn { try reader.send("ERROR 0") }
        _ = try await pane.waitForScreen(containing: "The biometric factor is not available. Use the passcode.", timeout: 20)
        _ = try await pane.waitForScreen(containing: "Password:", timeout: 20)
        try await pane.typeLine("alice-passcode")
        let screen = try await pane.waitForScreen(containing: "AUTH-EXIT=", timeout: 20)
        #expect(screen.contains("AUTH-EXIT=0"), "\(screen)")
        #expect(world.calls("touchgate") == passcodes + 1, "one passcode try")
        #expect(try await onAThreadOfItsOwn { try world.statusJSON()["passcodeFailures"] as? Int } == 0)
        #expect(try await onAThreadOfItsOwn { try world.statusJSON()["biometricFailures"] as? Int } == 0)
    }
}
