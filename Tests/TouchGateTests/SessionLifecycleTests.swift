import Testing
@testable import TouchGate
import TestSupport

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
                #expect(throws: SessionLifecycle.InvalidTransition(state: state, event: event)) {
                    try lifecycle.handle(event, now: 10, policy: enabled)
                }
                #expect(lifecycle == before)
            }
        }
    }

    @Test func launchLocksWhileEnabledOnly() throws {
        var locked = SessionLifecycle()
        #expect(try locked.handle(.didFinishLaunching, now: 0, policy: enabled) == .requireUnlock)
        #expect(locked.locked)
        var open = SessionLifecycle()
        #expect(try open.handle(.didFinishLaunching, now: 0, policy: disabled) == .none)
        #expect(!open.locked)
    }

    /// A launch on a row an earlier process left behind (it died without will-terminate, or a new
    /// tmux server reuses its session id) starts the session afresh: inactive, and locked while
    /// the lock is on, whatever the row said.
    @Test(arguments: LifecycleState.allCases)
    func aLaunchStartsAfreshWhateverTheRowSays(state: LifecycleState) throws {
        for stale in [SessionLifecycle(state: state), SessionLifecycle(state: state, locked: false, backgroundSince: 42)] {
            var lifecycle = stale
            #expect(try lifecycle.handle(.didFinishLaunching, now: 100, policy: enabled) == .requireUnlock)
            #expect(lifecycle == SessionLifecycle(state: .inactive, locked: true), "from \(stale)")
            // With the lock off it still starts afresh, and never clears a lock it finds.
            var off = stale
            _ = try off.handle(.didFinishLaunching, now: 100, policy: disabled)
            #expect(off == SessionLifecycle(state: .inactive, locked: false))
            var lockedOff = SessionLifecycle(state: state, locked: true)
            _ = try lockedOff.handle(.didFinishLaunching, now: 100, policy: disabled)
            #expect(lockedOff.locked)
        }
    }

    @Test func enteringTheBackgroundCancelsAPendingPromptAndLocks() throws {
        var lifecycle = SessionLifecycle(state: .inactive)
        #expect(try lifecycle.handle(.didEnterBackground, now: 100, policy: enabled) == .cancelPendingPrompt)
        #expect(lifecycle.locked)
        #expect(lifecycle.backgroundSince == 100)
    }

    @Test func aReturnWithinTheGraceNeedsNoUnlock() throws {
        var lifecycle = SessionLifecycle(state: .inactive)
        _ = try lifecycle.handle(.didEnterBackground, now: 100, policy: withGrace)
        #expect(!lifecycle.locked)
        #expect(try lifecycle.handle(.willEnterForeground, now: 159, policy: withGrace) == .none)
        #expect(!lifecycle.locked)
    }

    @Test func aReturnAfterTheGraceLocks() throws {
        var lifecycle = SessionLifecycle(state: .inactive)
        _ = try lifecycle.handle(.didEnterBackground, now: 100, policy: withGrace)
        #expect(try lifecycle.handle(.willEnterForeground, now: 160, policy: withGrace) == .requireUnlock)
        #expect(lifecycle.locked)
    }

    @Test func aClockThatWentBackwardsLocks() throws {
        var lifecycle = SessionLifecycle(state: .inactive)
        _ = try lifecycle.handle(.didEnterBackground, now: 100, policy: withGrace)
        _ = try lifecycle.handle(.willEnterForeground, now: 50, policy: withGrace)
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

    @Test func onlyUnlockClearsTheLock() throws {
        var lifecycle = SessionLifecycle()
        _ = try lifecycle.handle(.didFinishLaunching, now: 0, policy: enabled)
        // Made only by a successful evaluation (internal to the library; a test reaches it).
        lifecycle.unlock(EvaluationSuccess(user: "alice", purpose: .evaluation(.deviceOwner)))
        #expect(!lifecycle.locked)
        // Shown: active along the table.
        #expect(lifecycle.state == .active)
        #expect(lifecycle.backgroundSince == nil)
    }

    /// An unlock from the background walks the table (back, then active); becoming visible
    /// never leaves the table and never clears a lock.
    @Test func anUnlockAndBecomingVisibleFollowTheTable() throws {
        var away = SessionLifecycle()
        _ = try away.handle(.didFinishLaunching, now: 0, policy: enabled)
        _ = try away.handle(.didEnterBackground, now: 1, policy: enabled)
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
                    _ = try? lifecycle.handle(LifecycleEvent.allCases.randomElement(using: &generator)!, now: now, policy: policy)
                }
                if wasLocked { #expect(lifecycle.locked, "seed \(seed): a lock was cleared without unlock()") }
            }
        }
    }
}
