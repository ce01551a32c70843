import Glibc
import TouchGateCore

/// The system's real-time clock.
///
/// The corresponding C function is `clock_gettime` with `CLOCK_REALTIME`.
public struct WallClock: Clock {
    public init() {}

    public var now: Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1_000_000_000
    }
}
