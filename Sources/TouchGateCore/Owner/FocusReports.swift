/// Focus reporting (xterm's mode 1004, as tmux's `focus-events` uses it) between the outer
/// terminal, `touchgate shell` and the program it runs.
///
/// The owner turns the mode on at the outer terminal and takes its reports (`CSI I`, `CSI O`) out
/// of the input: they drive did-become-active and will-resign-active. A program that turned the
/// mode on itself (vim does) still gets them, and when it turns the mode off (at its exit) the
/// owner turns it on again, so the lifecycle keeps following the terminal. Pure: bytes in, bytes
/// and findings out.
package struct FocusReports: Sendable {
    /// Whether the program asked for focus reports (its last `CSI ? 1004 h/l`).
    package private(set) var programWantsReports = false

    package init() {}

    /// What one read of the outer terminal holds.
    package struct Input: Equatable, Sendable {
        /// The bytes for the program: the input without the reports, unless the program asked for them.
        package var bytes: [UInt8]
        /// The last focus change in the read (`true`: focus in), if any.
        package var focus: Bool?
    }

    /// Takes the focus reports out of `bytes` (a report split between two reads passes through
    /// as typed: holding a lone Escape back would delay the key).
    package func filter(_ bytes: ArraySlice<UInt8>) -> Input {
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count)
        var focus: Bool?
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == 0x1B, index + 2 < bytes.endIndex, bytes[index + 1] == 0x5B,
               bytes[index + 2] == 0x49 || bytes[index + 2] == 0x4F {
                focus = bytes[index + 2] == 0x49
                if programWantsReports { kept += bytes[index...(index + 2)] }
                index += 3
                continue
            }
            kept.append(byte)
            index += 1
        }
        return Input(bytes: kept, focus: focus)
    }

    /// Notes what the program's output does to the mode; `true` when it turned the mode off, so
    /// the owner must turn it on again at the outer terminal (after writing the output).
    package mutating func programWrote(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // Cheap for large output: the search for "?1004" is a byte scan that rarely matches.
        guard bytes.count >= 6 else { return false }
        var turnedOff = false
        var index = 0
        while index + 5 < bytes.count {
            if bytes[index] == 0x3F, bytes[index + 1] == 0x31, bytes[index + 2] == 0x30,
               bytes[index + 3] == 0x30, bytes[index + 4] == 0x34 {
                let final = bytes[index + 5]
                if final == 0x68 { programWantsReports = true; turnedOff = false }
                if final == 0x6C { programWantsReports = false; turnedOff = true }
            }
            index += 1
        }
        return turnedOff
    }

    /// `CSI ? 1004 h`: the outer terminal reports focus changes.
    package static let enable = "\u{1B}[?1004h"
    /// `CSI ? 1004 l`.
    package static let disable = "\u{1B}[?1004l"
}
