import Foundation
import Testing

/// Who answers a locked tmux session when several gates want its prompt: the gate in front of the
/// user can always unlock, and no gate waits for ever for one no one can reach. Real tmux (both
/// integrations loaded, as README says), real bash, real PAM and a real store.
@Suite struct TmuxClaimTests {
    typealias T = TmuxGateTests

    /// A world with the lock on, and an inner tmux server whose session `w` (made with
    /// `new-session -d`, as scripts and systemd-started servers do) runs an interactive bash that
    /// loads `touchgate shell-init bash`: its first prompt runs the pane's own gate.
    static func paneGateSession() throws -> (TestEnvironment, TmuxHarness, String) {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        let rc = world.directory.appendingPathComponent("bashrc").path
        let snippet = try TestEnvironment.execute(TestEnvironment.binary, ["shell-init", "bash"],
                                                  environment: TmuxHarness.environment(of: world))
        guard snippet.status == 0 else { throw TestFailure("shell-init failed: \(snippet)") }
        try ("PS1='READY$ '\n" + snippet.stdout).write(toFile: rc, atomically: true, encoding: .utf8)
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
        try gateEventually("the session unlocked") { try world.gateSessionStatus(id)?.locked == false }
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
