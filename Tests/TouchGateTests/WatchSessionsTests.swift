import Glibc
import Testing
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGateStore

/// ``WatchSessions``, what `touchgate watch` does to the sessions, against a real store whose
/// clock the test sets; the owners and tmux servers (``WatchEffects``) are recorded, in order.
@Suite(.removesItsFiles) struct WatchSessionsTests {
    final class Effects: WatchEffects {
        var done: [String] = []
        func coverShellOwners(session id: String?) -> OwnerChannel.LockResult {
            done.append("owners" + (id.map { " " + $0 } ?? ""))
            return OwnerChannel.LockResult()
        }
        func lockTmuxServers(recorded: [String]) -> [String] {
            done.append("tmux " + recorded.joined(separator: ","))
            return recorded
        }
        func lockTmuxSession(_ id: String, socket: String) -> Bool {
            done.append("tmux-session \(id) \(socket)")
            return true
        }
    }

    /// Alice's sessions `a` (active, in tmux) and `b` (active), unlocked, the lock on with a long grace.
    static func world(grace: Int = 3600) throws -> (WatchSessions, Effects, TestClock) {
        let clock = TestClock()
        let store = try Store(path: FilePath(temporaryStorePath()), clock: clock)
        _ = try store.set(.graceSeconds, to: String(grace), user: "alice")
        let events = LifecycleEvents(store: store, user: "alice")
        for id in ["a", "b"] {
            try events.apply(.didFinishLaunching, session: id)
            try events.apply(.didBecomeActive, session: id)
        }
        try store.recordTmuxSocket("/tmp/tmux-1/default", session: "a")
        try store.setEnabled(true, user: "alice", session: nil)
        let effects = Effects()
        return (WatchSessions(events: events, effects: effects), effects, clock)
    }

    static func row(_ sessions: WatchSessions, _ id: String) throws -> (LifecycleState, Bool)? {
        try sessions.events.store.session(id).map { ($0.lifecycle.state, $0.lifecycle.locked) }
    }

    @Test func aSuspendLocksEverySessionWhateverTheGraceThenCoversOwnersThenTmux() throws {
        let (sessions, effects, _) = try Self.world()
        try sessions.sendAllToBackground(cause: .suspend)
        #expect(try Self.row(sessions, "a")! == (.background, true))
        #expect(try Self.row(sessions, "b")! == (.background, true))
        #expect(effects.done == ["owners", "tmux /tmp/tmux-1/default"])
        #expect(sessions.backgrounded == ["a", "b"])
        #expect(try sessions.events.store.lastLifecycleEvent(session: "a")?.cause == "suspend")
    }

    /// `touchgate lock SESSION`: that session alone, its owners and its tmux session.
    @Test func oneSessionAloneIsSentAwayWithItsOwnersAndItsTmuxSession() throws {
        let (sessions, effects, _) = try Self.world()
        let report = try sessions.sendAllToBackground(cause: .lockCommand, session: "a")
        #expect(try Self.row(sessions, "a")! == (.background, true))
        #expect(try Self.row(sessions, "b")! == (.active, false))
        #expect(effects.done == ["owners a", "tmux-session a /tmp/tmux-1/default"])
        #expect(report.sessions.map(\.id) == ["a"] && report.tmuxSockets == ["/tmp/tmux-1/default"])
        #expect(try sessions.events.store.lastLifecycleEvent(session: "a")?.cause == "lock")
    }

    @Test func theWakeBringsThemBackStillLockedAndOnlyOnce() throws {
        let (sessions, effects, clock) = try Self.world()
        try sessions.sendAllToBackground(cause: .screenLock)
        clock.advance(by: 1)
        effects.done = []
        try sessions.bringAllToForeground()
        // Every owner looks again at the resume, before the sessions come back.
        #expect(effects.done == ["owners"])
        #expect(try Self.row(sessions, "a")! == (.inactive, true))
        #expect(sessions.backgrounded.isEmpty)
        #expect(try sessions.events.store.lastLifecycleEvent(session: "a")?.event == LifecycleEvent.willEnterForeground.rawValue)
        effects.done = []
        try sessions.bringAllToForeground()
        #expect(effects.done.isEmpty)
    }

    @Test func withTheLockOffTheSessionsGoAwayUnlockedAndReturnByTheClock() throws {
        let (sessions, _, clock) = try Self.world(grace: 60)
        try sessions.events.store.setEnabled(false, user: "alice", session: nil)
        try sessions.sendAllToBackground(cause: .suspend)
        #expect(try Self.row(sessions, "b")! == (.background, false))
        clock.advance(by: 3600)
        try sessions.bringAllToForeground()
        #expect(try Self.row(sessions, "b")! == (.inactive, false))
    }

    @Test func aSuspendEndsAWaitingPrompt() throws {
        let (sessions, _, _) = try Self.world()
        let child = try SleepingChild()
        #expect(try sessions.events.store.claimPrompt(session: "b", user: "alice", pid: child.pid, kind: PromptClaimKind.auth.rawValue) == nil)
        try sessions.sendAllToBackground(cause: .suspend)
        #expect(child.endingSignal() == SIGUSR1)
    }
}
