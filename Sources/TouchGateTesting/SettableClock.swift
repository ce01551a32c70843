import Synchronization
import TouchGate

/// A clock a test sets by hand, for the store (`Store(path:clock:)`, ``PAMWorld/openStore(clock:)``):
/// a passcode delay runs out when the test says so, without sleeping.
public final class SettableClock: Clock, Sendable {
    private let current: Mutex<Double>

    /// Starts at `start` seconds since 1970 (by default 2027-01-15).
    public init(_ start: Double = 1_800_000_000) {
        current = Mutex(start)
    }

    public var now: Double {
        get { current.withLock { $0 } }
    }

    /// Sets the time.
    public func set(_ seconds: Double) { current.withLock { $0 = seconds } }

    /// Moves the time on by `seconds`.
    public func advance(by seconds: Double) { current.withLock { $0 += seconds } }
}
