import TouchGateCore

/// What `touchgate watch` does with what logind says, as a pure state machine.
///
/// Shaped like swift-nio's state machines (NIOTLS's `ProtocolNegotiationHandlerStateMachine`): a
/// value type with a private `State` whose cases carry their data; each input is a method that
/// switches over every state and returns its own action type, holding only what can follow that
/// input, which the watcher (`TouchGateWatch`'s `Watcher`) carries out; nothing here does I/O or
/// reads a clock, so every path is testable. The bus I/O is ``LogindConnection``.
///
/// The invariants: the sleep delay inhibitor is released only after every session was sent to
/// the background and locked (``SleepAction/sendAllToBackground(thenReleaseInhibitor:)`` says
/// both, in that order), and no input ever leads to an unlock (there is no such action).
struct WatchStateMachine: Equatable, Sendable {
    /// What ``start()`` and ``reconnectDue()`` ask: connect to the system bus, find the user's
    /// sessions and subscribe; answer ``connected(logindPresent:)`` or ``disconnected(_:)``.
    enum ConnectAction: Equatable, Sendable {
        case connect
        /// Nothing: a connection is up or under way already.
        case none
    }

    /// What ``connected(logindPresent:)`` asks.
    enum ConnectedAction: Equatable, Sendable {
        /// Say `report` (a reconnect) when there is one, then take logind's sleep delay inhibitor
        /// and keep its file descriptor; answer ``inhibitorTaken()`` or ``inhibitorRefused()``.
        case takeInhibitor(report: String?)
        /// Say each line on standard error, in order (none: nothing to do).
        case report([String])
    }

    /// What ``disconnected(_:)`` asks.
    enum DisconnectedAction: Equatable, Sendable {
        /// Close the inhibitor's descriptor when `releaseInhibitor` (an inhibitor lives as long
        /// as the connection that took it), say `report`, drop the connection and answer
        /// ``reconnectDue()`` after `delay` seconds.
        case scheduleReconnect(after: Double, releaseInhibitor: Bool, report: String)
        /// Nothing: a reconnect is scheduled already.
        case none
    }

    /// What ``logindPresent(_:)`` asks.
    enum LogindPresenceAction: Equatable, Sendable {
        /// logind left: close the inhibitor's descriptor when `releaseInhibitor` (logind's end
        /// of it is gone), then say `report`.
        case left(releaseInhibitor: Bool, report: String)
        /// logind is back: say `report`, then take an inhibitor when `takeInhibitor`.
        case back(report: String, takeInhibitor: Bool)
        /// Nothing: there is no connection to hear it on.
        case none
    }

    /// What ``preparingForSleep()`` asks: in one store transaction, every session of the user
    /// to the background and locked (a waiting evaluation cancelled, every tmux server of those
    /// sessions locking its clients); then, when `thenReleaseInhibitor`, close the inhibitor's
    /// descriptor, which lets the machine sleep.
    enum SleepAction: Equatable, Sendable {
        case sendAllToBackground(thenReleaseInhibitor: Bool)
    }

    /// What ``wokeUp()`` asks: `will-enter-foreground` for the sessions this watcher sent to
    /// the background (never an unlock); then, when `thenTakeInhibitor`, a new inhibitor.
    enum WakeAction: Equatable, Sendable {
        case bringAllToForeground(thenTakeInhibitor: Bool)
    }

    /// What ``sessionLocked()`` asks: every session of the user to the background and locked
    /// (as ``SleepAction``), the inhibitor untouched.
    enum SessionLockAction: Equatable, Sendable {
        case sendAllToBackground
    }

    /// What ``sessionUnlocked()`` asks: the sessions this watcher sent away back towards the
    /// foreground (never an unlock), the inhibitor untouched.
    enum SessionUnlockAction: Equatable, Sendable {
        case bringAllToForeground
    }

    /// What ``inhibitorTaken()`` asks.
    enum InhibitorTakenAction: Equatable, Sendable {
        /// Keep its descriptor open.
        case keep
        /// The machine is going to sleep already: close it at once.
        case releaseInhibitor
    }

    /// What ``inhibitorRefused()`` asks: say the line on standard error.
    enum InhibitorRefusedAction: Equatable, Sendable {
        case report(String)
    }

    /// What ``terminate()`` asks: close the inhibitor's descriptor when `releaseInhibitor`,
    /// then stop with exit status 0.
    enum TerminateAction: Equatable, Sendable {
        case exit(releaseInhibitor: Bool)
    }

    /// What the watcher knows whatever its connection does.
    struct Facts: Equatable, Sendable {
        /// Between `PrepareForSleep(true)` and `(false)`: no new inhibitor is taken.
        var sleeping = false
        /// Failed connection attempts since the last success, for the backoff.
        var failures = 0
        /// Whether a connection ever succeeded (a later success is a reconnect and is reported).
        var everConnected = false
    }

    private enum State: Equatable, Sendable {
        /// Not started.
        case idle(Facts)
        case connecting(Facts)
        /// Connected and subscribed; `holdsInhibitor`: an inhibitor's descriptor is open.
        case connected(Facts, holdsInhibitor: Bool)
        /// The connection failed or went away; a reconnect is scheduled.
        case waiting(Facts)
        /// Terminated: the watcher exits.
        case exited(Facts)

        /// Whether the machine is between `PrepareForSleep(true)` and `(false)`, whatever the connection.
        mutating func setSleeping(_ sleeping: Bool) {
            switch self {
            case .idle(var facts): facts.sleeping = sleeping; self = .idle(facts)
            case .connecting(var facts): facts.sleeping = sleeping; self = .connecting(facts)
            case .connected(var facts, let holds): facts.sleeping = sleeping; self = .connected(facts, holdsInhibitor: holds)
            case .waiting(var facts): facts.sleeping = sleeping; self = .waiting(facts)
            case .exited(var facts): facts.sleeping = sleeping; self = .exited(facts)
            }
        }

        var facts: Facts {
            switch self {
            case .idle(let facts), .connecting(let facts), .connected(let facts, _), .waiting(let facts), .exited(let facts):
                facts
            }
        }
    }

    private var state = State.idle(Facts())

    /// Whether an inhibitor is held (its descriptor open).
    var holdsInhibitor: Bool {
        switch state {
        case .connected(_, let holds): holds
        case .idle, .connecting, .waiting, .exited: false
        }
    }

    /// Between `PrepareForSleep(true)` and `(false)`: no new inhibitor is taken.
    var sleeping: Bool { state.facts.sleeping }
    /// Failed connection attempts since the last success, for the backoff.
    var failures: Int { state.facts.failures }

    /// The first reconnect delay; each further failure doubles it up to ``maximumDelay``.
    static let initialDelay = 0.25
    static let maximumDelay = 30.0

    init() {}

    /// The delay before the next attempt after `failures` failed ones.
    static func backoff(failures: Int) -> Double {
        min(maximumDelay, initialDelay * Double(1 << min(max(failures - 1, 0), 16)))
    }

    // MARK: - Inputs

    /// The watcher starts.
    mutating func start() -> ConnectAction {
        switch state {
        case .idle(let facts), .waiting(let facts):
            state = .connecting(facts)
            return .connect
        case .connecting, .connected, .exited:
            return .none
        }
    }

    /// The reconnect delay asked for by ``DisconnectedAction/scheduleReconnect(after:releaseInhibitor:report:)`` is over.
    mutating func reconnectDue() -> ConnectAction {
        start()
    }

    /// The bus connection is up and subscribed; whether logind is on the bus.
    mutating func connected(logindPresent: Bool) -> ConnectedAction {
        var facts: Facts, holds: Bool
        switch state {
        case .connected(let known, let holding): (facts, holds) = (known, holding)
        case .idle(let known), .connecting(let known), .waiting(let known), .exited(let known): (facts, holds) = (known, false)
        }
        let reconnected = facts.everConnected ? "reconnected to the system bus" : nil
        facts.everConnected = true
        facts.failures = 0
        state = .connected(facts, holdsInhibitor: holds)
        if !logindPresent {
            return .report((reconnected.map { [$0] } ?? []) + ["logind is not on the system bus; waiting for it"])
        }
        if !facts.sleeping, !holds { return .takeInhibitor(report: reconnected) }
        return .report(reconnected.map { [$0] } ?? [])
    }

    /// Connecting failed, or the connection went away; `reason` says why.
    mutating func disconnected(_ reason: String) -> DisconnectedAction {
        var facts: Facts, held: Bool
        switch state {
        case .waiting:
            return .none
        case .connected(let known, let holding): (facts, held) = (known, holding)
        case .idle(let known), .connecting(let known), .exited(let known): (facts, held) = (known, false)
        }
        facts.failures += 1
        state = .waiting(facts)
        let delay = Self.backoff(failures: facts.failures)
        return .scheduleReconnect(after: delay, releaseInhibitor: held,
                                  report: "\(reason); reconnecting in \(Self.seconds(delay))")
    }

    /// logind left the bus (its name lost its owner), or came back.
    mutating func logindPresent(_ present: Bool) -> LogindPresenceAction {
        switch state {
        case .connected(var facts, let holds):
            if !present {
                // logind's end of the inhibitor is gone with it.
                state = .connected(facts, holdsInhibitor: false)
                return .left(releaseInhibitor: holds, report: "logind left the system bus; waiting for it to come back")
            }
            // A new logind knows nothing of the old one's inhibitor or of the sleep under way.
            facts.sleeping = false
            state = .connected(facts, holdsInhibitor: holds)
            return .back(report: "logind is back on the system bus", takeInhibitor: !holds)
        case .idle, .connecting, .waiting, .exited:
            return .none
        }
    }

    /// `PrepareForSleep(true)`: the machine is about to sleep. The lock first, then the
    /// inhibitor: logind waits for it before the machine sleeps.
    mutating func preparingForSleep() -> SleepAction {
        switch state {
        case .connected(var facts, let holds):
            facts.sleeping = true
            state = .connected(facts, holdsInhibitor: false)
            return .sendAllToBackground(thenReleaseInhibitor: holds)
        case .idle, .connecting, .waiting, .exited:
            state.setSleeping(true)
        }
        return .sendAllToBackground(thenReleaseInhibitor: false)
    }

    /// `PrepareForSleep(false)`: the machine woke.
    mutating func wokeUp() -> WakeAction {
        switch state {
        case .connected(var facts, let holds):
            facts.sleeping = false
            state = .connected(facts, holdsInhibitor: holds)
            return .bringAllToForeground(thenTakeInhibitor: !holds)
        case .idle, .connecting, .waiting, .exited:
            state.setSleeping(false)
        }
        return .bringAllToForeground(thenTakeInhibitor: false)
    }

    /// `Lock` on one of the user's sessions (`loginctl lock-session`, a desktop locker).
    mutating func sessionLocked() -> SessionLockAction {
        switch state {
        case .idle, .connecting, .connected, .waiting, .exited: .sendAllToBackground
        }
    }

    /// `Unlock` on one of the user's sessions.
    mutating func sessionUnlocked() -> SessionUnlockAction {
        switch state {
        case .idle, .connecting, .connected, .waiting, .exited: .bringAllToForeground
        }
    }

    /// The delay inhibitor was taken (its descriptor is open).
    mutating func inhibitorTaken() -> InhibitorTakenAction {
        switch state {
        case .connected(let facts, _):
            state = .connected(facts, holdsInhibitor: !facts.sleeping)
            return facts.sleeping ? .releaseInhibitor : .keep
        case .idle, .connecting, .waiting, .exited:
            // No connection holds it: it cannot be kept.
            return .releaseInhibitor
        }
    }

    /// logind refused the delay inhibitor.
    mutating func inhibitorRefused() -> InhibitorRefusedAction {
        switch state {
        case .connected(let facts, _):
            state = .connected(facts, holdsInhibitor: false)
        case .idle, .connecting, .waiting, .exited:
            break
        }
        return .report("logind refused a sleep delay inhibitor; a suspend may come before the lock")
    }

    /// SIGTERM or SIGINT.
    mutating func terminate() -> TerminateAction {
        switch state {
        case .connected(let facts, let holds):
            state = .exited(facts)
            return .exit(releaseInhibitor: holds)
        case .idle(let facts), .connecting(let facts), .waiting(let facts), .exited(let facts):
            state = .exited(facts)
            return .exit(releaseInhibitor: false)
        }
    }

    private static func seconds(_ value: Double) -> String {
        value < 1 ? "\(Int(value * 1000)) ms" : "\(Int(value)) s"
    }
}
