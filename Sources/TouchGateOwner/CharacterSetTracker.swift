/// Whether libvterm, after the bytes fed to it so far, prints every printable ASCII byte as
/// itself: its G0 character set is ASCII (or UTF-8, as a reset leaves it) and G0 is shifted in.
///
/// The one part of libvterm's state the plain-line shortcut (``InnerScreen``) cannot observe
/// through libvterm's API: a line it feeds and reads back shows only how the characters in that
/// line are drawn, while `ESC ( 0` (DEC line drawing), `ESC ( A` (the UK set) or a shift to G1-G3
/// would change others. It follows only what changes that: SO/SI, which libvterm carries out
/// wherever they come (C0 controls run inside escape sequences and strings too), and an escape
/// sequence's intermediates and final byte (an ESC always starts one, whatever state the parser
/// was in). It errs one way only: when it cannot tell, it says the sets are not plain, and the
/// shortcut is off until a sequence sets them back (`ESC ( B`, SI, `ESC c`).
struct CharacterSetTracker {
    private enum State {
        case ground
        /// After ESC: the first intermediate byte (0x20-0x2F) if any, and how many there were.
        case escape(first: UInt8, count: Int)
    }

    private var state = State.ground
    /// G0 is ASCII or UTF-8 (each prints 0x20-0x7E as itself).
    private var asciiG0 = true
    /// Which set is shifted into GL (0 = G0).
    private var shifted = 0

    /// Whether printable ASCII bytes print as themselves now (and no escape sequence is open).
    var plain: Bool {
        if case .ground = state { return asciiG0 && shifted == 0 }
        return false
    }

    /// Follows `bytes`, which libvterm has been (or is being) fed, in order.
    mutating func track(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes { track(byte) }
    }

    mutating func track(_ byte: UInt8) {
        switch byte {
        case 0x0E: shifted = 1 // SO: G1 into GL
        case 0x0F: shifted = 0 // SI: G0 into GL
        case 0x18, 0x1A: state = .ground // CAN, SUB: the sequence is abandoned
        case 0x1B: state = .escape(first: 0, count: 0)
        default:
            guard case .escape(let first, let count) = state, byte >= 0x20 else { return }
            switch byte {
            case 0x20...0x2F:
                state = .escape(first: count == 0 ? byte : first, count: count + 1)
            case 0x30...0x7E:
                state = .ground
                finish(first: first, count: count, final: byte)
            case 0x7F:
                break // DEL is ignored inside a sequence
            default:
                // A byte libvterm's escape state does not define: no longer sure of anything.
                state = .ground
                asciiG0 = false
            }
        }
    }

    private mutating func finish(first: UInt8, count: Int, final: UInt8) {
        switch (count, first, final) {
        case (0, _, UInt8(ascii: "c")): // RIS: every set back to its default, G0 shifted in
            asciiG0 = true
            shifted = 0
        case (0, _, UInt8(ascii: "n")), (0, _, UInt8(ascii: "o")): // LS2, LS3
            shifted = 2
        case (_, UInt8(ascii: "("), _): // SCS for G0: only `ESC ( B` is ASCII
            asciiG0 = count == 1 && final == UInt8(ascii: "B")
        default:
            break
        }
    }
}
