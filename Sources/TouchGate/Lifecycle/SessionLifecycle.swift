/// The lifecycle of one terminal session and its relock policy, as a pure state machine.
///
/// In the manner of swift-nio's state machines: a value type, each event returns the action the
/// caller must carry out, and nothing here does I/O or reads a clock, so every path is testable.
///
/// The security invariant: `locked` becomes false only through ``unlock(_:)``, which takes the
/// ``EvaluationSuccess`` only a successful evaluation makes. No event clears it, and every
/// change of `state` follows ``destination(of:from:)``.
public struct SessionLifecycle: Equatable, Sendable {
    public private(set) var state: LifecycleState
    /// A successful evaluation is needed before the session is shown again.
    public private(set) var locked: Bool
    /// When the session entered the background, while it is there or returning from it.
    public private(set) var backgroundSince: Double?

    /// What the relock policy is set to for this session's user.
    public struct Policy: Equatable, Sendable {
        /// The lock is turned on; with it off, nothing is ever locked.
        public var enabled: Bool
        /// A return within this many seconds of entering the background needs no unlock.
        public var graceSeconds: Int

        public init(enabled: Bool, graceSeconds: Int) {
            self.enabled = enabled
            self.graceSeconds = graceSeconds
        }
    }

    /// What the caller must do after an event.
    public enum Action: Equatable, Sendable {
        /// Nothing beyond storing the new state.
        case none
        /// The session is (still) locked: cover it and ask on the next activation.
        case requireUnlock
        /// End a prompt that is waiting for this session with `appCancel`; the session stays locked.
        case cancelPendingPrompt
    }

    /// An event the current state does not allow; the state is left as it was.
    public struct InvalidTransition: Error, Equatable, Sendable, CustomStringConvertible {
        public let state: LifecycleState
        public let event: LifecycleEvent
        public var description: String { "event \(event.rawValue) is not valid in state \(state.rawValue)" }
    }

    /// A session that never ran (`notRunning`, unlocked): every later state comes from the table.
    public init() {
        self.init(state: .notRunning)
    }

    /// A lifecycle in any state: only for the store, which reads one back from its row (and for
    /// tests), so that no caller outside the library sets a state around the table.
    init(state: LifecycleState, locked: Bool = false, backgroundSince: Double? = nil) {
        self.state = state
        self.locked = locked
        self.backgroundSince = backgroundSince
    }

    /// The state each event leads to from each state it is valid in, following UIKit's application lifecycle.
    ///
    /// One addition to UIKit's table: `didFinishLaunching` is valid in every state. A launch is a
    /// new process, so a row that does not say `notRunning` can only be left by an older one that
    /// died without `willTerminate` (`exec`, SIGKILL, a crash, a tmux server gone with its hooks,
    /// whose session id a new server reuses). Refusing the launch would let the new process inherit
    /// the old one's state, unlocked; it starts afresh instead (see ``handle(_:now:policy:)``).
    public static func destination(of event: LifecycleEvent, from state: LifecycleState) -> LifecycleState? {
        switch (state, event) {
        case (_, .didFinishLaunching): .inactive
        case (.inactive, .didBecomeActive): .active
        case (.active, .willResignActive): .inactive
        case (.inactive, .didEnterBackground): .background
        case (.background, .willEnterForeground): .inactive
        case (.inactive, .willTerminate), (.active, .willTerminate), (.background, .willTerminate): .notRunning
        default: nil
        }
    }

    /// Applies `event` at time `now` under `policy`.
    public mutating func handle(_ event: LifecycleEvent, now: Double, policy: Policy) throws(InvalidTransition) -> Action {
        guard let next = Self.destination(of: event, from: state) else {
            throw InvalidTransition(state: state, event: event)
        }
        state = next
        switch event {
        case .didFinishLaunching:
            // A fresh start: nothing of an earlier process's absence carries over, and a lock it
            // left stays (only `unlock()` clears one).
            backgroundSince = nil
            if policy.enabled { locked = true }
        case .didEnterBackground:
            backgroundSince = now
            if policy.enabled, policy.graceSeconds == 0 { locked = true }
            return .cancelPendingPrompt
        case .willEnterForeground:
            relockIfGraceElapsed(now: now, policy: policy)
        case .didBecomeActive:
            backgroundSince = nil
        case .willTerminate:
            backgroundSince = nil
        case .willResignActive:
            break
        }
        return locked ? .requireUnlock : .none
    }

    /// Locks the session if it has been away longer than the grace period (a return is being decided).
    public mutating func relockIfGraceElapsed(now: Double, policy: Policy) {
        guard policy.enabled, let since = backgroundSince else { return }
        // A clock that went backwards counts as a long absence: fail closed.
        if now < since || now - since >= Double(policy.graceSeconds) { locked = true }
    }

    /// A shell idle since `since`: counts as a trip to the background that began then, and as a
    /// return now, locked when the absence outlasted the grace period.
    public mutating func idled(since: Double, now: Double, policy: Policy) {
        if state != .background {
            backgroundSince = min(since, now)
            state = .background
        }
        relockIfGraceElapsed(now: now, policy: policy)
    }

    /// Locks the session now, whatever its state (an idle timeout or an explicit lock request).
    public mutating func lock(policy: Policy) {
        if policy.enabled { locked = true }
    }

    /// Clears the lock after `success` and shows the session: it becomes active along the table
    /// (back from the background, then active), its absence over. A gate that unlocks a session
    /// has shown it.
    public mutating func unlock(_ success: EvaluationSuccess) {
        locked = false
        backgroundSince = nil
        for event in [LifecycleEvent.didFinishLaunching, .willEnterForeground, .didBecomeActive]
        where state != .active && (event != .didFinishLaunching || state == .notRunning) {
            if let next = Self.destination(of: event, from: state) { state = next }
        }
    }

    /// A session the gate found unlocked is shown: it becomes active through the events of the
    /// table (a return from the background decided on the way, with the grace period), and
    /// stays where it is once one of them locks it. Nothing here unlocks.
    public mutating func becameVisible(now: Double, policy: Policy) {
        for event in [LifecycleEvent.willEnterForeground, .didBecomeActive] where !locked {
            guard Self.destination(of: event, from: state) != nil else { continue }
            _ = try? handle(event, now: now, policy: policy)
        }
    }

    /// True while the session is returning from the background (inactive, with an absence on record).
    public var isReturning: Bool { state == .inactive && backgroundSince != nil }
}
