import Foundation
import Testing

/// `touchgate lock [SESSION]` (issue 27, item 6): every session of the user locked and covered at
/// once, by the watcher's own screen-lock path, with a real owner in a pseudo-terminal and a real
/// tmux client.
@Suite(.serialized) struct LockCommandTests {
    /// An unlocked owner running bash and an unlocked, attached tmux session in a locked world.
    static func unlockedOwnerAndTmux() throws -> (TestEnvironment, OwnerHarness, TmuxHarness, ownerSession: String, ownerPID: pid_t,
                                                 tmuxSession: String) {
        let world = try ShellOwnerTests.lockedWorld([("grace-seconds", "3600")])
        let owner = try OwnerHarness(world: world, shell: "bash")
        try ShellOwnerTests.startUnlocked(owner)
        try owner.typeLine("echo VISIBLE-$((40+2))")
        try owner.waitForScreen(containing: "VISIBLE-42")
        let (ownerSession, ownerPID) = try owner.owner()
        let tmux = try TmuxHarness(world: world)
        try tmux.startInnerSession("s", command: "printf '\(TmuxGateTests.marker)\\n'; exec /bin/sh")
        try tmux.attach("s")
        try TmuxGateTests.unlockWithFinger(tmux)
        let tmuxSession = try tmux.sessionID("s")
        try TmuxGateTests.expectLocked(world, tmuxSession, false)
        try TmuxGateTests.expectLocked(world, ownerSession, false)
        return (world, owner, tmux, ownerSession, ownerPID, tmuxSession)
    }

    @Test func lockCoversTheOwnerAndLocksTheTmuxClientBeforeItReturns() throws {
        let (world, owner, tmux, ownerSession, ownerPID, tmuxSession) = try Self.unlockedOwnerAndTmux()
        defer { owner.shutdown(); tmux.shutdown() }
        let rawBefore = owner.rawOutput().count
        let result = try world.run(["--json", "lock"])
        #expect(result.status == 0, "\(result)")
        // The owner answered only once its cover was up: it is there when lock returns.
        #expect(owner.coverDrawn(since: rawBefore, by: ownerPID), "the owner drew no cover before lock returned")
        let json = try #require(result.json, "\(result)")
        let sessions = (json["sessions"] as? [[String: Any]]) ?? []
        #expect(Set(sessions.compactMap { $0["session"] as? String }) == [ownerSession, tmuxSession], "\(result)")
        #expect(sessions.allSatisfy { $0["locked"] as? Bool == true && $0["state"] as? String == "background" }, "\(result)")
        #expect(json["owners"] as? [Int] == [Int(ownerPID)], "\(result)")
        #expect(json["unconfirmedOwners"] as? [Int] == [], "\(result)")
        #expect((json["tmuxSockets"] as? [String])?.contains(tmux.innerSocket) == true, "\(result)")
        try TmuxGateTests.waitForGate(tmux)
        try ShellOwnerTests.waitForGate(owner)
        #expect(!(try owner.screen().contains("VISIBLE-42")))
        // Nothing typed reaches the shell.
        try owner.typeLine("touch '\(ShellOwnerTests.markPath(world, "reached"))'")
        try ShellOwnerTests.waitForGate(owner)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!ShellOwnerTests.exists(world, "reached"))
        try TmuxGateTests.unlockWithFinger(tmux)
        try ShellOwnerTests.unlock(owner)
        try owner.waitForScreen(containing: "VISIBLE-42")
    }

    @Test func aNamedSessionAloneIsLocked() throws {
        let (world, owner, tmux, ownerSession, ownerPID, tmuxSession) = try Self.unlockedOwnerAndTmux()
        defer { owner.shutdown(); tmux.shutdown() }
        let result = try world.run(["--json", "lock", tmuxSession])
        #expect(result.status == 0, "\(result)")
        let sessions = (result.json?["sessions"] as? [[String: Any]]) ?? []
        #expect(sessions.compactMap { $0["session"] as? String } == [tmuxSession], "\(result)")
        #expect(result.json?["owners"] as? [Int] == [], "\(result)")
        #expect(result.json?["tmuxSockets"] as? [String] == [tmux.innerSocket], "\(result)")
        try TmuxGateTests.waitForGate(tmux)
        try TmuxGateTests.expectLocked(world, tmuxSession, true)
        // The owner's session is left as it was, and its shell still runs what is typed.
        try TmuxGateTests.expectLocked(world, ownerSession, false)
        try owner.typeLine("echo STILL-$((2+3))")
        try owner.waitForScreen(containing: "STILL-5")

        // The owner's session by name: its terminal covered before lock returns, the tmux one untouched.
        let rawBefore = owner.rawOutput().count
        let text = try world.run(["lock", ownerSession])
        #expect(text.status == 0 && text.stdout.hasPrefix("locked 1 session(s): \(ownerSession)\n"), "\(text)")
        #expect(owner.coverDrawn(since: rawBefore, by: ownerPID), "\(text)")
        try ShellOwnerTests.waitForGate(owner)
    }

    @Test func anUnknownSessionIsABadValueAndLocksNothing() throws {
        let world = try ShellOwnerTests.lockedWorld()
        try world.gateEvents(["did-finish-launching", "did-become-active"], session: "shell-1")
        try world.gateEvents(["did-finish-launching", "will-terminate"], session: "shell-ended")
        let unknown = try world.run(["lock", "nope"])
        #expect(unknown.status == 65 && unknown.stderr == "touchgate: unknown session 'nope'\n", "\(unknown)")
        let ended = try world.run(["--json", "lock", "shell-ended"])
        #expect(ended.status == 65 && ended.json?["exitCode"] as? Int == 65, "\(ended)")
        #expect(ended.stderr == "touchgate: session 'shell-ended' is not running\n", "\(ended)")
        #expect(try world.gateSessionStatus("shell-1")?.state == "active")
        // With no session named, the one running is sent away, locked.
        let all = try world.run(["lock"])
        #expect(all.status == 0 && all.stdout.hasPrefix("locked 1 session(s): shell-1\n"), "\(all)")
        #expect(try world.gateSessionStatus("shell-1").map { $0.state == "background" && $0.locked } == true)
    }
}
