/// What `touchgate watch` does with what logind says, as a pure state machine.
///
/// In the manner of swift-nio's state machines: a value type; each input returns the actions the
/// caller must carry out, in order; nothing here does I/O or reads a clock, so every path is
/// testable. The bus I/O is ``LogindConnection``; the CLI only wires the two.
///
/// The invariants: the sleep delay inhibitor is released only after every session was sent to
/// the background and locked (``Action/sendAllToBackground`` comes first in the same list), and
/// no input ever leads to an unlock (there is no such action).
public struct WatchStateMachine: Equatable, Sendable {
    /// Something that happened to the watcher.
    public enum Input: Equatable, Sendable {
        /// The watcher starts.
        case started
        /// The bus connection is up and subscribed; whether logind is on the bus.
        case connected(logindPresent: Bool)
        /// Connecting failed, or the connection went away; the text says why.
        case disconnected(String)
        /// The reconnect delay asked for by ``Action/scheduleReconnect(after:)`` is over.
        case reconnectDue
        /// logind left the bus (its name lost its owner), or came back.
        case logindPresent(Bool)
        /// `PrepareForSleep(true)` (the machine is about to sleep) or `(false)` (it woke).
        case prepareForSleep(Bool)
        /// `Lock` on one of the user's sessions (`loginctl lock-session`, a desktop locker).
        case sessionLock
        /// `Unlock` on one of the user's sessions.
        case sessionUnlock
        /// The delay inhibitor was taken (`true`) or logind refused it (`false`).
        case inhibitorTaken(Bool)
        /// SIGTERM or SIGINT.
        case terminate
    }

    /// What the caller must do, in the order given.
    public enum Action: Equatable, Sendable {
        /// Connect to the system bus, find the user's sessions and subscribe.
        case connect
        /// Take logind's sleep delay inhibitor and keep its file descriptor.
        case takeInhibitor
        /// Close the inhibitor's file descriptor, which lets the machine sleep.
        case releaseInhibitor
        /// In one store transaction, every session of the user to the background and locked;
        /// a waiting evaluation cancelled; every tmux server of those sessions locks its clients.
        case sendAllToBackground
        /// `will-enter-foreground` for the sessions this watcher sent to the background (never an unlock).
        case bringAllToForeground
        /// Drop the connection and come back with ``Input/reconnectDue`` after this many seconds.
        case scheduleReconnect(after: Double)
        /// One line on standard error.
        case report(String)
        /// Stop, with exit status 0.
        case exit
    }

    enum Connection: Equatable, Sendable {
        case idle
        case connecting
        case connected
        case waiting
    }

    var connection = Connection.idle
    /// Whether an inhibitor is held (its descriptor open).
    public private(set) var holdsInhibitor = false
    /// Between `PrepareForSleep(true)` and `(false)`: no new inhibitor is taken.
    public private(set) var sleeping = false
    /// Failed connection attempts since the last success, for the backoff.
    private(set) var failures = 0
    /// Whether a connection ever succeeded (a later success is a reconnect and is reported).
    private var everConnected = false

    /// The first reconnect delay; each further failure doubles it up to ``maximumDelay``.
    public static let initialDelay = 0.25
    public static let maximumDelay = 30.0

    public init() {}

    /// The delay before the next attempt after `failures` failed ones.
    public static func backoff(failures: Int) -> Double {
        min(maximumDelay, initialDelay * Double(1 << min(max(failures - 1, 0), 16)))
    }

    public mutating func handle(_ input: Input) -> [Action] {
        switch input {
        case .started, .reconnectDue:
            guard connection == .idle || connection == .waiting else { return [] }
            connection = .connecting
            return [.connect]
        case .connected(let logindPresent):
            connection = .connected
            var actions: [Action] = []
            if everConnected { actions.append(.report("reconnected to the system bus")) }
            everConnected = true
            failures = 0
            if !logindPresent {
                actions.append(.report("logind is not on the system bus; waiting for it"))
            } else if !sleeping, !holdsInhibitor {
                actions.append(.takeInhibitor)
            }
            return actions
        case .disconnected(let reason):
            guard connection != .waiting else { return [] }
            connection = .waiting
            failures += 1
            let delay = Self.backoff(failures: failures)
            // An inhibitor lives as long as the connection that took it; close what is left of it.
            var actions = releasingInhibitor()
            actions.append(.report("\(reason); reconnecting in \(Self.seconds(delay))"))
            actions.append(.scheduleReconnect(after: delay))
            return actions
        case .logindPresent(let present):
            guard connection == .connected else { return [] }
            if !present {
                // logind's end of the inhibitor is gone with it.
                return releasingInhibitor() + [.report("logind left the system bus; waiting for it to come back")]
            }
            // A new logind knows nothing of the old one's inhibitor or of the sleep under way.
            sleeping = false
            return [.report("logind is back on the system bus")] + (holdsInhibitor ? [] : [.takeInhibitor])
        case .prepareForSleep(true):
            sleeping = true
            // The lock first, then the inhibitor: logind waits for it before the machine sleeps.
            return [.sendAllToBackground] + releasingInhibitor()
        case .prepareForSleep(false):
            sleeping = false
            return [.bringAllToForeground] + (holdsInhibitor || connection != .connected ? [] : [.takeInhibitor])
        case .sessionLock:
            return [.sendAllToBackground]
        case .sessionUnlock:
            return [.bringAllToForeground]
        case .inhibitorTaken(let taken):
            holdsInhibitor = taken && !sleeping
            if taken, sleeping { return [.releaseInhibitor] }
            return taken ? [] : [.report("logind refused a sleep delay inhibitor; a suspend may come before the lock")]
        case .terminate:
            return releasingInhibitor() + [.exit]
        }
    }

    /// ``Action/releaseInhibitor`` when an inhibitor is held (none is afterwards), else nothing.
    private mutating func releasingInhibitor() -> [Action] {
        guard holdsInhibitor else { return [] }
        holdsInhibitor = false
        return [.releaseInhibitor]
    }

    private static func seconds(_ value: Double) -> String {
        value < 1 ? "\(Int(value * 1000)) ms" : "\(Int(value)) s"
    }
}
