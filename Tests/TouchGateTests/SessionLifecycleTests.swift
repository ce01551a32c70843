import Testing
@testable import TouchGate
import TestSupport
@testable import TouchGateCore

@Suite struct SessionLifecycleTests {
    let enabled = SessionLifecycle.Policy(enabled: true, graceSeconds: 0)
    let withGrace = SessionLifecycle.Policy(enabled: true, graceSeconds: 60)
    let disabled = SessionLifecycle.Policy(enabled: false, graceSeconds: 0)

    @Test func theValidTransitionsAreUIKits() {
        let valid: Set<String> = [
            "notRunning+did-finish-launching", "inactive+did-finish-launching", "active+did-finish-launching",
            "background+did-finish-launching", "inactive+did-become-active", "active+will-resign-active",
            "inactive+did-enter-background", "background+will-enter-foreground", "inactive+will-terminate",
            "active+will-terminate", "background+will-terminate",
        ]
        for state in LifecycleState.allCases {
            for event in LifecycleEvent.allCases {
                let allowed = SessionLifecycle.destination(of: event, from: state) != nil
                #expect(allowed == valid.contains("\(state.rawValue)+\(event.rawValue)"), "\(state) \(event)")
            }
        }
    }

    @Test func anInvalidEventLeavesTheStateAsItWas() {
        for state in LifecycleState.allCases {
            for event in LifecycleEvent.allCases where SessionLifecycle.destination(of: event, from: state) == nil {
                var lifecycle = SessionLifecycle(state: state, locked: true, backgroundSince: 5)
                let before = lifecycle
                #expect(lifecycle.handle(event, now: 10, policy: enabled)
                    == .refused(SessionLifecycle.InvalidTransition(state: state, event: event)))
                #expect(lifecycle == before)
            }
        }
    }

    @Test func launchLocksWhileEnabledOnly() {
        var locked = SessionLifecycle()
        #expect(locked.handle(.didFinishLaunching, now: 0, policy: enabled) == .requireUnlock)
        #expect(locked.locked)
        var open = SessionLifecycle()
        #expect(open.handle(.didFinishLaunching, now: 0, policy: disabled) == .none)
        #expect(!open.locked)
    }

    /// A launch on a row an earlier process left behind (it died without will-terminate, or a new
    /// tmux server reuses its session id) starts the session afresh: inactive, and locked while
    /// the lock is on, whatever the row said.
    @Test(arguments: LifecycleState.allCases)
    func aLaunchStartsAfreshWhateverTheRowSays(state: LifecycleState) {
        for stale in [SessionLifecycle(state: state), SessionLifecycle(state: state, locked: false, backgroundSince: 42)] {
            var lifecycle = stale
            #expect(lifecycle.handle(.didFinishLaunching, now: 100, policy: enabled) == .requireUnlock)
            #expect(lifecycle == SessionLifecycle(state: .inactive, locked: true), "from \(stale)")
            // With the lock off it still starts afresh, and never clears a lock it finds.
            var off = stale
            _ = off.handle(.didFinishLaunching, now: 100, policy: disabled)
            #expect(off == SessionLifecycle(state: .inactive, locked: false))
            var lockedOff = SessionLifecycle(state: state, locked: true)
            _ = lockedOff.handle(.didFinishLaunching, now: 100, policy: disabled)
            #expect(lockedOff.locked)
        }
    }

    @Test func enteringTheBackgroundCancelsAPendingPromptAndLocks() {
        var lifecycle = SessionLifecycle(state: .inactive)
        #expect(lifecycle.handle(.didEnterBackground, now: 100, policy: enabled) == .cancelPendingPrompt)
        #expect(lifecycle.locked)
        #expect(lifecycle.backgroundSince == 100)
    }

    @Test func aReturnWithinTheGraceNeedsNoUnlock() {
        var lifecycle = SessionLifecycle(state: .inactive)
        _ = lifecycle.handle(.didEnterBackground, now: 100, policy: withGrace)
        #expect(!lifecycle.locked)
        #expect(lifecycle.handle(.willEnterForeground, now: 159, policy: withGrace) == .none)
        #expect(!lifecycle.locked)
    }

    @Test func aReturnAfterTheGraceLocks() {
        var lifecycle = SessionLifecycle(state: .inactive)
        _ = lifecycle.handle(.didEnterBackground, now: 100, policy: withGrace)
        #expect(lifecycle.handle(.willEnterForeground, now: 160, policy: withGrace) == .requireUnlock)
        #expect(lifecycle.locked)
    }

    @Test func aClockThatWentBackwardsLocks() {
        var lifecycle = SessionLifecycle(state: .inactive)
        _ = lifecycle.handle(.didEnterBackground, now: 100, policy: withGrace)
        _ = lifecycle.handle(.willEnterForeground, now: 50, policy: withGrace)
        #expect(lifecycle.locked)
    }

    @Test func anIdleShellCountsAsATripToTheBackground() {
        var lifecycle = SessionLifecycle(state: .active)
        lifecycle.idled(since: 100, now: 400, policy: withGrace)
        #expect(lifecycle.locked)
        var brief = SessionLifecycle(state: .active)
        brief.idled(since: 100, now: 130, policy: withGrace)
        #expect(!brief.locked)
    }

    @Test func onlyUnlockClearsTheLock() {
        var lifecycle = SessionLifecycle()
        _ = lifecycle.handle(.didFinishLaunching, now: 0, policy: enabled)
        // Made only by a successful evaluation (internal to the library; a test reaches it).
        lifecycle.unlock(EvaluationSuccess(user: "alice", purpose: .evaluation(.deviceOwner)))
        #expect(!lifecycle.locked)
        // Shown: active along the table.
        #expect(lifecycle.state == .active)
        #expect(lifecycle.backgroundSince == nil)
    }

    /// An unlock from the background walks the table (back, then active); becoming visible
    /// never leaves the table and never clears a lock.
    @Test func anUnlockAndBecomingVisibleFollowTheTable() {
        var away = SessionLifecycle()
        _ = away.handle(.didFinishLaunching, now: 0, policy: enabled)
        _ = away.handle(.didEnterBackground, now: 1, policy: enabled)
        away.unlock(EvaluationSuccess(user: "alice", purpose: .evaluation(.deviceOwner)))
        #expect(away.state == .active && !away.locked)

        var returning = SessionLifecycle(state: .background, locked: false, backgroundSince: 100)
        returning.becameVisible(now: 110, policy: withGrace)
        #expect(returning.state == .active && !returning.locked)
        var late = SessionLifecycle(state: .background, locked: false, backgroundSince: 100)
        late.becameVisible(now: 1_000, policy: withGrace)
        #expect(late.locked, "the return decided on the way locks")
        #expect(late.state == .inactive)
        var locked = SessionLifecycle(state: .inactive, locked: true)
        locked.becameVisible(now: 0, policy: enabled)
        #expect(locked.state == .inactive && locked.locked)
    }

    /// Random event sequences, applied whether valid or not, never clear a lock: only `unlock(_:)` does.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func randomEventSequencesNeverUnlock(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let policies = [enabled, withGrace, disabled, SessionLifecycle.Policy(enabled: true, graceSeconds: 5)]
        for _ in 0..<500 {
            var lifecycle = SessionLifecycle(
                state: LifecycleState.allCases.randomElement(using: &generator)!,
                locked: Bool.random(using: &generator),
                backgroundSince: Bool.random(using: &generator) ? Double.random(in: 0...1000, using: &generator) : nil)
            var now = Double.random(in: 0...1000, using: &generator)
            for _ in 0..<40 {
                let wasLocked = lifecycle.locked
                now += Double.random(in: -5...120, using: &generator)
                let policy = policies.randomElement(using: &generator)!
                switch Int.random(in: 0..<10, using: &generator) {
                case 0: lifecycle.relockIfGraceElapsed(now: now, policy: policy)
                case 1: lifecycle.lock(policy: policy)
                case 2: lifecycle.idled(since: now - Double.random(in: 0...600, using: &generator), now: now, policy: policy)
                case 3: lifecycle.becameVisible(now: now, policy: policy)
                default:
                    _ = lifecycle.handle(LifecycleEvent.allCases.randomElement(using: &generator)!, now: now, policy: policy)
                }
                if wasLocked { #expect(lifecycle.locked, "seed \(seed): a lock was cleared without unlock()") }
            }
        }
    }

    /// An idle shell reaches the background by the table's own events, not around it: from
    /// active through inactive, its absence dated from when it went idle (never later than now).
    @Test func anIdleShellGoesToTheBackgroundByTheTable() {
        var active = SessionLifecycle(state: .active)
        active.idled(since: 100, now: 130, policy: withGrace)
        #expect(active == SessionLifecycle(state: .background, locked: false, backgroundSince: 100))
        var returning = SessionLifecycle(state: .inactive, locked: false, backgroundSince: 10)
        returning.idled(since: 500, now: 400, policy: withGrace)
        #expect(returning == SessionLifecycle(state: .background, locked: false, backgroundSince: 400))
        var away = SessionLifecycle(state: .background, locked: false, backgroundSince: 50)
        away.idled(since: 100, now: 400, policy: withGrace)
        #expect(away == SessionLifecycle(state: .background, locked: true, backgroundSince: 50))
        // No shell runs in a session that is not running: nothing to idle, nothing changes.
        var ended = SessionLifecycle()
        ended.idled(since: 0, now: 400, policy: withGrace)
        #expect(ended == SessionLifecycle())
    }

    /// A refused event is an action, not an error: nothing changes, and it says which state refused which event.
    @Test func aRefusedEventIsAValue() {
        var ended = SessionLifecycle()
        #expect(ended.handle(.didBecomeActive, now: 0, policy: enabled)
            == .refused(SessionLifecycle.InvalidTransition(state: .notRunning, event: .didBecomeActive)))
        #expect(ended.handleIfAllowed(.didBecomeActive, now: 0, policy: enabled) == nil)
        #expect(ended == SessionLifecycle())
        #expect(SessionLifecycle.InvalidTransition(state: .notRunning, event: .didBecomeActive).description
            == "event did-become-active is not valid in state notRunning")
    }

    /// A time of absence is kept only where the state has one: a row that says active or not
    /// running with one reads back without it.
    @Test func anAbsenceIsKeptOnlyWhereTheStateHasOne() {
        #expect(SessionLifecycle(state: .active, backgroundSince: 5).backgroundSince == nil)
        #expect(SessionLifecycle(state: .notRunning, backgroundSince: 5).backgroundSince == nil)
        #expect(SessionLifecycle(state: .background, backgroundSince: 5).backgroundSince == 5)
        #expect(SessionLifecycle(state: .inactive, backgroundSince: 5).isReturning)
        #expect(!SessionLifecycle(state: .inactive).isReturning)
    }

    /// The rules for a gate that starts, in order: launch, idle, return, lock request, shown.
    @Test func aGateStartFollowsTheLifecycle() {
        var never = SessionLifecycle()
        let neverLocked = never.gateStarts(idleSince: nil, lockRequest: false, now: 10, policy: enabled)
        #expect(neverLocked)
        #expect(never.state == .inactive)
        var open = SessionLifecycle(state: .inactive)
        let openLocked = open.gateStarts(idleSince: nil, lockRequest: false, now: 10, policy: withGrace)
        #expect(!openLocked)
        #expect(open.state == .active)
        var requested = SessionLifecycle(state: .active)
        let requestedLocked = requested.gateStarts(idleSince: nil, lockRequest: true, now: 10, policy: withGrace)
        #expect(requestedLocked)
        var idle = SessionLifecycle(state: .active)
        let idleLocked = idle.gateStarts(idleSince: 0, lockRequest: false, now: 100, policy: withGrace)
        #expect(idleLocked)
        #expect(idle.state == .background)
        var back = SessionLifecycle(state: .background, backgroundSince: 100)
        let backLocked = back.gateStarts(idleSince: nil, lockRequest: false, now: 110, policy: withGrace)
        #expect(!backLocked)
        #expect(back.state == .active)
        var late = SessionLifecycle(state: .background, backgroundSince: 100)
        let lateLocked = late.gateStarts(idleSince: nil, lockRequest: false, now: 1_000, policy: withGrace)
        #expect(lateLocked)
        #expect(SessionLifecycle(state: .active).needsNoDecisionAtGateStart)
        #expect(!SessionLifecycle(state: .active, locked: true).needsNoDecisionAtGateStart)
        #expect(!SessionLifecycle(state: .inactive).needsNoDecisionAtGateStart)
    }
}
