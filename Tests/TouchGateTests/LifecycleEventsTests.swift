import Glibc
import Testing
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGateStore

/// ``LifecycleEvents`` against a real store whose clock the test sets: grace periods, the relock
/// on a return, and the prompt owner a `did-enter-background` ends, without sleeping.
@Suite(.removesItsFiles) struct LifecycleEventsTests {
    /// A store of alice's with `grace-seconds` at `grace`, the lock on, and session `s` launched
    /// (while the lock was off) and active, so unlocked.
    static func world(grace: Int) throws -> (LifecycleEvents, TestClock) {
        let clock = TestClock()
        let store = try Store(path: FilePath(temporaryStorePath()), clock: clock)
        _ = try store.set(.graceSeconds, to: String(grace), user: "alice")
        let events = LifecycleEvents(store: store, user: "alice")
        try events.apply(.didFinishLaunching, session: "s")
        try events.apply(.didBecomeActive, session: "s")
        try store.setEnabled(true, user: "alice", session: nil)
        return (events, clock)
    }

    static func away(_ events: LifecycleEvents) throws {
        try events.apply(.willResignActive, session: "s")
        try events.apply(.didEnterBackground, session: "s")
    }

    @Test func aReturnWithinTheGraceStaysUnlockedAndOneAtItsEndLocks() throws {
        let (events, clock) = try Self.world(grace: 60)
        try Self.away(events)
        clock.advance(by: 59)
        #expect(try events.apply(.willEnterForeground, session: "s").lifecycle.locked == false)
        try events.apply(.didBecomeActive, session: "s")
        try Self.away(events)
        clock.advance(by: 60)
        #expect(try events.apply(.willEnterForeground, session: "s").lifecycle.locked == true)
    }

    @Test func withNoGraceTheTripAwayLocksAtOnce() throws {
        let (events, _) = try Self.world(grace: 0)
        try events.apply(.willResignActive, session: "s")
        #expect(try events.apply(.didEnterBackground, session: "s").lifecycle.locked == true)
    }

    @Test func aClockThatWentBackwardsLocksOnTheReturn() throws {
        let (events, clock) = try Self.world(grace: 3600)
        try Self.away(events)
        clock.advance(by: -1)
        #expect(try events.apply(.willEnterForeground, session: "s").lifecycle.locked == true)
    }

    @Test func theGraceIsReadWhenTheSessionReturnsNotWhenItLeft() throws {
        let (events, clock) = try Self.world(grace: 3600)
        try Self.away(events)
        // Shortened while the session is away: its return is decided by the new grace.
        _ = try events.store.set(.graceSeconds, to: "10", user: "alice")
        clock.advance(by: 11)
        #expect(try events.apply(.willEnterForeground, session: "s").lifecycle.locked == true)
    }

    @Test func statusShowsASessionAwayPastItsGraceLockedWithoutWritingIt() throws {
        let (events, clock) = try Self.world(grace: 60)
        try Self.away(events)
        let policy = try events.policy()
        #expect(try events.sessionsAsReturningNow(policy: policy).map(\.lifecycle.locked) == [false])
        clock.advance(by: 60)
        #expect(try events.sessionsAsReturningNow(policy: policy).map(\.lifecycle.locked) == [true])
        #expect(try events.store.session("s")?.lifecycle.locked == false)
    }

    @Test func anEventTheStateDoesNotAllowWritesNothing() throws {
        let (events, _) = try Self.world(grace: 60)
        let before = try events.store.session("s")
        let entries = try events.store.auditEntries(limit: 100).count
        #expect(throws: SessionLifecycle.InvalidTransition.self) { try events.apply(.willEnterForeground, session: "s") }
        #expect(try events.store.session("s") == before)
        #expect(try events.store.auditEntries(limit: 100).count == entries)
    }

    @Test func applyAllowedSkipsWhatTheStateRefusesAndAppliesTheRest() throws {
        let (events, clock) = try Self.world(grace: 0)
        // From active, did-enter-background alone is refused; will-resign-active then it go.
        try events.applyAllowed([.didEnterBackground, .willResignActive, .didEnterBackground], session: "s")
        let record = try #require(try events.store.session("s"))
        #expect(record.lifecycle.state == .background && record.lifecycle.locked)
        #expect(record.lifecycle.backgroundSince == clock.now)
        // Nothing unlocks by odd orders: the lock stays through whatever is allowed.
        try events.applyAllowed([.didBecomeActive, .willEnterForeground, .didBecomeActive], session: "s")
        #expect(try events.store.session("s")?.lifecycle.locked == true)
    }

    @Test func goingToTheBackgroundEndsAnotherProcesssWaitingPrompt() throws {
        let (events, _) = try Self.world(grace: 60)
        let child = try SleepingChild()
        #expect(try events.store.claimPrompt(session: "s", user: "alice", pid: child.pid, kind: PromptClaimKind.auth.rawValue) == nil)
        try events.apply(.willResignActive, session: "s")
        #expect(child.endingSignal(within: 0.2) == nil, "will-resign-active ends no prompt")
        try events.apply(.didEnterBackground, session: "s")
        #expect(child.endingSignal() == SIGUSR1)
    }
}
