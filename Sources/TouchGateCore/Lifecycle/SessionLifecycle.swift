/// The lifecycle of one terminal session and its relock policy, as a pure state machine.
///
/// Shaped like swift-nio's state machines (NIOTLS's `ProtocolNegotiationHandlerStateMachine`):
/// a value type with a private `State` whose cases carry their data (the time an absence
/// began, only where there is one); each input returns what the caller must do, a transition
/// the table refuses included (``Action/refused(_:)``, a value, nothing changed); nothing here
/// does I/O or reads a clock, so every path is testable.
///
/// The security invariant: `locked` becomes false only through ``unlock(_:)``, which takes the
/// ``EvaluationSuccess`` only a successful evaluation makes. No event clears it, and every
/// change of state follows ``destination(of:from:)``: the state is private, and no input sets
/// it around the table (an idle shell goes to the background by the table's own events).
public struct SessionLifecycle: Equatable, Sendable {
    /// Where the session is in the table, with what each place knows.
    private enum State: Equatable, Sendable {
        case notRunning
        /// `returningSince`: when the absence it returns from began (a return being decided).
        case inactive(returningSince: Double?)
        case active
        /// `since`: when the session entered the background (`nil` only in a row written so).
        case background(since: Double?)

        /// The place `state` in the table, with `since` where it has one.
        init(_ state: LifecycleState, since: Double?) {
            switch state {
            case .notRunning: self = .notRunning
            case .inactive: self = .inactive(returningSince: since)
            case .active: self = .active
            case .background: self = .background(since: since)
            }
        }
    }

    private var current: State
    /// A successful evaluation is needed before the session is shown again.
    public private(set) var locked: Bool

    /// The place in the table.
    public var state: LifecycleState {
        switch current {
        case .notRunning: .notRunning
        case .inactive: .inactive
        case .active: .active
        case .background: .background
        }
    }

    /// When the session entered the background, while it is there or returning from it.
    public var backgroundSince: Double? {
        switch current {
        case .inactive(let since), .background(let since): since
        case .notRunning, .active: nil
        }
    }

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
        /// The state does not allow the event: nothing changed, nothing is to be stored.
        case refused(InvalidTransition)
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
    /// tests), so that no caller outside the library sets a state around the table. A time of
    /// absence is kept only where the state has one (inactive, background).
    package init(state: LifecycleState, locked: Bool = false, backgroundSince: Double? = nil) {
        self.current = State(state, since: backgroundSince)
        self.locked = locked
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
        case (.notRunning, _), (.inactive, .willResignActive), (.inactive, .willEnterForeground),
             (.active, .didBecomeActive), (.active, .didEnterBackground), (.active, .willEnterForeground),
             (.background, .didBecomeActive), (.background, .willResignActive), (.background, .didEnterBackground): nil
        }
    }

    /// Applies `event` at time `now` under `policy`; ``Action/refused(_:)`` (nothing changed)
    /// when the table does not allow it from this state.
    public mutating func handle(_ event: LifecycleEvent, now: Double, policy: Policy) -> Action {
        guard let next = Self.destination(of: event, from: state) else {
            return .refused(InvalidTransition(state: state, event: event))
        }
        switch event {
        case .didFinishLaunching:
            // A fresh start: nothing of an earlier process's absence carries over, and a lock it
            // left stays (only `unlock()` clears one).
            current = State(next, since: nil)
            if policy.enabled { locked = true }
        case .didEnterBackground:
            current = State(next, since: now)
            if policy.enabled, policy.graceSeconds == 0 { locked = true }
            return .cancelPendingPrompt
        case .willEnterForeground:
            current = State(next, since: backgroundSince)
            relockIfGraceElapsed(now: now, policy: policy)
        case .willResignActive:
            current = State(next, since: backgroundSince)
        case .didBecomeActive, .willTerminate:
            current = State(next, since: nil)
        }
        return locked ? .requireUnlock : .none
    }

    /// Locks the session if it has been away longer than the grace period (a return is being decided).
    public mutating func relockIfGraceElapsed(now: Double, policy: Policy) {
        guard policy.enabled, let since = backgroundSince else { return }
        // A clock that went backwards counts as a long absence: fail closed.
        if now < since || now - since >= Double(policy.graceSeconds) { locked = true }
    }

    /// A shell idle since `since`: counts as a trip to the background that began then (by the
    /// table's events: will-resign-active when active, did-enter-background), and as a return
    /// now, locked when the absence outlasted the grace period. A session that is not running
    /// has no shell to idle: it is left as it is.
    public mutating func idled(since: Double, now: Double, policy: Policy) {
        switch current {
        case .notRunning:
            return
        case .active:
            _ = handle(.willResignActive, now: now, policy: policy)
            _ = handle(.didEnterBackground, now: min(since, now), policy: policy)
        case .inactive:
            _ = handle(.didEnterBackground, now: min(since, now), policy: policy)
        case .background:
            break
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
        for event in [LifecycleEvent.didFinishLaunching, .willEnterForeground, .didBecomeActive]
        where state != .active && (event != .didFinishLaunching || state == .notRunning) {
            if let next = Self.destination(of: event, from: state) { current = State(next, since: nil) }
        }
    }

    /// A session the gate found unlocked is shown: it becomes active through the events of the
    /// table (a return from the background decided on the way, with the grace period), and
    /// stays where it is once one of them locks it. Nothing here unlocks.
    public mutating func becameVisible(now: Double, policy: Policy) {
        for event in [LifecycleEvent.willEnterForeground, .didBecomeActive] where !locked {
            guard Self.destination(of: event, from: state) != nil else { continue }
            _ = handle(event, now: now, policy: policy)
        }
    }

    /// True while the session is returning from the background (inactive, with an absence on record).
    public var isReturning: Bool {
        switch current {
        case .inactive(let since): since != nil
        case .notRunning, .active, .background: false
        }
    }
}
