import Foundation
import Testing

/// Who answers a locked tmux session when several gates want its prompt: the gate in front of the
/// user can always unlock, and no gate waits for ever for one no one can reach. Real tmux (both
/// integrations loaded, as README says), real bash, real PAM and a real store.
@Suite struct TmuxClaimTests {
    typealias T = TmuxGateTests

    /// A world with the lock on, and an inner tmux server whose session `w` (made with
    /// `new-session -d`, as scripts and systemd-started servers do) runs an interactive bash
    /// whose rc file runs `touchgate gate` in the pane (the session from `$TMUX`), as a user or a
    /// script in a pane may: a gate that holds the prompt before any client exists, behind
    /// the session's clients.
    static func paneGateSession() throws -> (TestEnvironment, TmuxHarness, String) {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        let rc = world.directory.appendingPathComponent("bashrc").path
        try "PS1='READY$ '\n'\(TestEnvironment.binary)' gate\n".write(toFile: rc, atomically: true, encoding: .utf8)
        let tmux = try TmuxHarness(world: world)
        try tmux.startInnerSession("w", command: "printf '\(T.marker)\\n'; exec /bin/bash --noprofile --rcfile '\(rc)' -i")
        let id = try tmux.sessionID("w")
        // The pane's gate holds the prompt before any client exists.
        try gateEventually("the pane's gate to claim the prompt") {
            try world.sqlite("SELECT prompt_pid IS NOT NULL FROM sessions WHERE id = '\(id)'") == "1"
        }
        #expect(try world.sqlite("SELECT prompt_kind FROM sessions WHERE id = '\(id)'") == "tmux-pane")
        return (world, tmux, id)
    }

    @Test func theClientsGateTakesThePromptFromThePanesGate() throws {
        let (world, tmux, id) = try Self.paneGateSession()
        defer { tmux.shutdown() }
        try tmux.attach("w")
        // Before: "Another terminal is unlocking this session …; waiting." for ever.
        let screen = try tmux.waitForScreen(containing: "Password:", timeout: 15)
        #expect(!screen.contains("Another terminal"), "\(screen)")
        #expect(try world.sqlite("SELECT prompt_kind FROM sessions WHERE id = '\(id)'") == "gate")
        try tmux.typeLine(T.finger)
        try gateEventually("the session unlocked") { try world.gateSessionStatus(id)?.locked == false }
        // The pane's gate saw the unlock and gave the prompt back to bash.
        try tmux.waitForScreen(containing: "READY$")
        #expect(!(try tmux.screen()).contains(T.gateTitle))
    }

    @Test func aNewSessionFromATerminalIsNeverLeftWaitingForItsPane() throws {
        let (world, tmux, _) = try Self.paneGateSession()
        defer { tmux.shutdown() }
        let rc = world.directory.appendingPathComponent("bashrc").path
        // `tmux new -s n` typed at a terminal: the pane's gate and the client's race for the prompt.
        try tmux.attach(newSession: "n", command: "exec /bin/bash --noprofile --rcfile '\(rc)' -i")
        try tmux.waitForScreen(containing: "Password:", timeout: 15)
        try gateEventually("both gates up") { (try? tmux.sessionID("n")) != nil }
        let id = try tmux.sessionID("n")
        try tmux.typeLine(T.finger)
        do {
            try gateEventually("the session unlocked", timeout: 15) { try world.gateSessionStatus(id)?.locked == false }
        } catch {
            throw TestFailure("\(error); the screen:\n\(try tmux.screen())\nthe row: \(try world.gateSessionRow(id))")
        }
        try tmux.waitForScreen(containing: "READY$")
    }

    @Test func enterAtAWaitingGateTakesThePromptOver() throws {
        let (world, tmux, id) = try T.lockedSession()
        defer { tmux.shutdown() }
        try tmux.attach("s", pane: "o")
        try T.waitForGate(tmux, pane: "o")
        try tmux.attach("s", pane: "o2")
        try tmux.waitForScreen(containing: "Press Enter to unlock it here instead.", pane: "o2")
        try tmux.type("Enter", pane: "o2")
        // The waiting terminal asks now; the first one's prompt ended and it waits in turn.
        try tmux.waitForScreen(containing: "Password:", pane: "o2", timeout: 10)
        try tmux.waitForScreen(containing: "Another terminal is unlocking this session", pane: "o", timeout: 10)
        try tmux.typeLine(T.finger, pane: "o2")
        try tmux.waitForScreen(containing: T.marker, pane: "o2")
        try tmux.waitForScreen(containing: T.marker, pane: "o")
        try T.expectLocked(world, id, false)
    }

    @Test func aGateOnATerminalTakesThePromptFromAProcessOnNoTerminal() throws {
        let (world, tmux, id) = try T.lockedSession()
        defer { tmux.shutdown() }
        // A gate with no controlling terminal (started by the test, answers on standard input).
        let away = try world.start(["-S", "gate", "--session", id])
        defer { away.signal(SIGKILL) }
        try away.waitForError(containing: "Password:")
        try tmux.attach("s")
        let screen = try tmux.waitForScreen(containing: "Password:", timeout: 15)
        #expect(!screen.contains("Another terminal"), "\(screen)")
        // Its prompt was ended (appCancel), not answered.
        let result = try away.wait(timeout: 10)
        #expect(result.status == 9, "\(result)")
        try T.unlockWithFinger(tmux)
        try T.expectLocked(world, id, false)
    }
}

/// A lock of a tmux session met by one client or one pane locks every client of the session:
/// nothing of it stays on another terminal, and no tmux command can be typed at any of them.
@Suite struct TmuxLockEveryClientTests {
    typealias T = TmuxGateTests

    /// The clients of inner session `session`, by name.
    static func clients(_ tmux: TmuxHarness, _ session: String) throws -> [String] {
        try tmux.inner("list-clients", "-t", session, "-F", "#{client_name}").stdout.split(separator: "\n").map(String.init)
    }

    @Test func lockingOneClientLocksEveryClientOfTheSession() throws {
        let (world, tmux, id) = try T.lockedSession()
        defer { tmux.shutdown() }
        // Two clients, then one unlock (an attach to a session shown elsewhere locks it anew).
        try tmux.attach("s", pane: "o")
        try T.waitForGate(tmux, pane: "o")
        try tmux.attach("s", pane: "o2")
        try tmux.waitForScreen(containing: "Another terminal is unlocking", pane: "o2")
        try T.unlockWithFinger(tmux, pane: "o")
        try tmux.waitForScreen(containing: T.marker, pane: "o2")
        try gateEventually("two clients") { try Self.clients(tmux, "s").count == 2 }
        let first = try Self.clients(tmux, "s")[0]
        try tmux.inner("lock-client", "-t", first)
        try gateEventually("the session locked") { try world.gateSessionStatus(id)?.locked == true }
        // Before: the other client kept showing the session.
        for pane in ["o", "o2"] {
            try tmux.waitForScreen(containing: T.gateTitle, pane: pane, timeout: 10)
            let screen = try tmux.screen(pane)
            #expect(!screen.contains(T.marker), "\(pane): \(screen)")
        }
        // One of them asks, the other waits for it.
        var asking = ""
        try gateEventually("a prompt at one client") {
            asking = try ["o", "o2"].first { try tmux.screen($0).contains("Password:") } ?? ""
            return !asking.isEmpty
        }
        try tmux.typeLine(T.finger, pane: asking)
        do {
            for pane in ["o", "o2"] { try tmux.waitForScreen(containing: T.marker, pane: pane, timeout: 10) }
        } catch {
            throw TestFailure("\(error)\n--- o:\n\(try tmux.screen("o"))\n--- o2:\n\(try tmux.screen("o2"))\nrow: \(try world.gateSessionRow(id))")
        }
    }

    @Test func aPanesIdleLockLocksEveryClientAndNoTmuxCommandRunsMeanwhile() throws {
        let (world, tmux, id) = try TmuxClaimTests.paneGateSession()
        defer { tmux.shutdown() }
        let idle = try world.run(["-S", "config", "set", "idle-seconds", "1"], input: T.passcode + "\n")
        #expect(idle.status == 0, "\(idle)")
        try tmux.attach("w", pane: "o")
        try tmux.waitForScreen(containing: "Password:", pane: "o", timeout: 15)
        try tmux.attach("w", pane: "o2")
        try tmux.waitForScreen(containing: "Another terminal is unlocking", pane: "o2")
        try tmux.typeLine(T.finger, pane: "o")
        try tmux.waitForScreen(containing: "READY$", pane: "o")
        try tmux.waitForScreen(containing: "READY$", pane: "o2")
        // A gate in the pane that finds the session idle for longer than idle-seconds: it locks
        // the session, and with it every client, not only the pane it runs in.
        let since = Int(Date().timeIntervalSince1970) - 5
        try tmux.typeLine("'\(TestEnvironment.binary)' gate --idle-since \(since) && echo IDLE-COMMAND-RAN", pane: "o")
        try gateEventually("the session locked") { try world.gateSessionStatus(id)?.locked == true }
        try gateEventually("a client's gate holding the prompt") {
            try world.sqlite("SELECT prompt_kind FROM sessions WHERE id = '\(id)'") == "gate"
        }
        // tmux's own command prompt at the other client: a locked client sends its keys to the gate.
        let ran = world.directory.appendingPathComponent("run-shell-ran").path
        try tmux.type("C-b", pane: "o2")
        try tmux.type(":", pane: "o2")
        try tmux.type("run-shell 'touch \(ran)'", pane: "o2", literal: true)
        try tmux.type("Enter", pane: "o2")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(!FileManager.default.fileExists(atPath: ran), "a tmux command ran at a locked session")
        #expect(!TmuxGateTests.hasLine(try tmux.innerPane("w"), "IDLE-COMMAND-RAN"))
        for pane in ["o", "o2"] { try tmux.waitForScreen(containing: T.gateTitle, pane: pane) }
    }
}
