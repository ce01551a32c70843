import Glibc

/// A process named by its pid and its start time, so that a pid the kernel has since given to
/// another process is never taken for the one that was recorded.
///
/// The start time is field 22 of `/proc/PID/stat` (clock ticks after boot): two processes that
/// share a pid one after the other never share it.
public struct ProcessIdentity: Equatable, Hashable, Sendable, CustomStringConvertible {
    public let pid: Int32
    public let startTime: UInt64

    public init(pid: Int32, startTime: UInt64) {
        self.pid = pid
        self.startTime = startTime
    }

    /// This process.
    public static var current: ProcessIdentity? { of(getpid()) }

    /// The process that has `pid` now, or `nil` when there is none (or `/proc` cannot tell).
    public static func of(_ pid: Int32) -> ProcessIdentity? {
        guard pid > 0, let start = startTime(of: pid) else { return nil }
        return ProcessIdentity(pid: pid, startTime: start)
    }

    /// True while this very process runs (a zombie included): the pid exists and started when
    /// this one did.
    public var isAlive: Bool {
        Self.startTime(of: pid) == startTime
    }

    public var description: String { "\(pid)" }

    /// Whether process `pid` has a controlling terminal (field 7 of `/proc/PID/stat`, `tty_nr`,
    /// is not 0): a process on no terminal is not one a user is typing at. `nil` when `/proc`
    /// cannot tell.
    public static func hasControllingTerminal(_ pid: Int32) -> Bool? {
        statLine(of: pid).flatMap { field(7, statLine: $0[...]) }.map { $0 != 0 }
    }

    /// Field 22 of `/proc/PID/stat`.
    static func startTime(of pid: Int32) -> UInt64? {
        statLine(of: pid).flatMap { startTime(statLine: $0[...]) }
    }

    /// The text of `/proc/PID/stat`, or `nil` when there is no such process.
    static func statLine(of pid: Int32) -> [UInt8]? {
        fileContents("/proc/\(pid)/stat", limit: 1024)
    }

    /// Field 22 of one `/proc/PID/stat` line.
    static func startTime(statLine buffer: ArraySlice<UInt8>) -> UInt64? {
        field(22, statLine: buffer)
    }

    /// Numeric field `wanted` (from 3) of one `/proc/PID/stat` line.
    ///
    /// The command name (field 2) is in parentheses and may itself hold spaces and parentheses,
    /// so the fields are counted from the last `)`.
    static func field(_ wanted: Int, statLine buffer: ArraySlice<UInt8>) -> UInt64? {
        guard let close = buffer.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        // After ")": " S ppid …": field 3 (state) is the first; field `wanted` follows.
        var field = 2
        var value: UInt64 = 0
        var inField = false
        for byte in buffer[(close + 1)...] {
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") {
                if inField, field == wanted { return value }
                inField = false
                continue
            }
            if !inField {
                inField = true
                field += 1
                value = 0
            }
            if field == wanted {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value &* 10 &+ UInt64(byte - UInt8(ascii: "0"))
            }
        }
        return inField && field == wanted ? value : nil
    }
}
