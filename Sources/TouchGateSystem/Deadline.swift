import Glibc

/// A point in time that is `CLOCK_MONOTONIC`: the end of a wait, unaffected by changes of the
/// wall clock.
///
/// The toolkit's own clock (it depends on no other touchgate module), for the deadlines of
/// child processes and reads.
package struct Deadline: Comparable, Sendable {
    /// Nanoseconds of `CLOCK_MONOTONIC`.
    package let nanoseconds: Int64

    package init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// Now.
    package static var now: Deadline {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Deadline(nanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }

    /// `seconds` from now.
    package static func after(seconds: Double) -> Deadline {
        Deadline(nanoseconds: now.nanoseconds + Int64(seconds * 1_000_000_000))
    }

    /// `milliseconds` from now.
    package static func after(milliseconds: Int) -> Deadline {
        Deadline(nanoseconds: now.nanoseconds + Int64(milliseconds) * 1_000_000)
    }

    /// Whether the deadline has come.
    package var hasPassed: Bool { Deadline.now >= self }

    /// What is left, in whole milliseconds rounded up, for `poll` (0 once passed).
    package var remainingMilliseconds: Int32 {
        let left = nanoseconds - Deadline.now.nanoseconds
        guard left > 0 else { return 0 }
        return Int32(clamping: (left + 999_999) / 1_000_000)
    }

    package static func < (lhs: Deadline, rhs: Deadline) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
}
