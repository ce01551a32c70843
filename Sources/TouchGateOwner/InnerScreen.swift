import CVTerm
import Glibc

/// The screen of the program `touchgate shell` runs, kept by libvterm (the emulator neovim's
/// terminal uses) from every byte the program writes, shown or not.
///
/// After an unlock the owner draws it back: what the terminal would show now had the program's
/// output reached it meanwhile (the cells with their attributes and colours, the cursor, the
/// alternate screen), not what it showed when the lock came. libvterm rather than a home-made
/// parser: it is the kept library for this, in Debian, and follows xterm's sequences.
final class InnerScreen {
    private let terminal: OpaquePointer
    private let screen: OpaquePointer
    private(set) var rows: Int32
    private(set) var columns: Int32
    /// The properties the drawing needs, set through libvterm's callback.
    fileprivate var alternateScreen = false
    fileprivate var cursorVisible = true
    /// Bytes libvterm answers the program with (a cursor position report, a device attribute):
    /// passed to the program only while the outer terminal cannot answer (covered).
    fileprivate var answers: [UInt8] = []
    private var callbacks = VTermScreenCallbacks()

    init(rows: Int32, columns: Int32) {
        self.rows = max(rows, 1)
        self.columns = max(columns, 1)
        terminal = vterm_new(self.rows, self.columns)
        vterm_set_utf8(terminal, 1)
        screen = vterm_obtain_screen(terminal)
        callbacks.settermprop = { property, value, user in
            guard let user, let value else { return 1 }
            let owner = Unmanaged<InnerScreen>.fromOpaque(user).takeUnretainedValue()
            switch property {
            case VTERM_PROP_ALTSCREEN: owner.alternateScreen = value.pointee.boolean != 0
            case VTERM_PROP_CURSORVISIBLE: owner.cursorVisible = value.pointee.boolean != 0
            default: break
            }
            return 1
        }
        vterm_screen_set_callbacks(screen, &callbacks, Unmanaged.passUnretained(self).toOpaque())
        vterm_output_set_callback(terminal, { bytes, count, user in
            guard let user, let bytes else { return }
            let owner = Unmanaged<InnerScreen>.fromOpaque(user).takeUnretainedValue()
            owner.answers += UnsafeRawBufferPointer(start: bytes, count: count)
        }, Unmanaged.passUnretained(self).toOpaque())
        vterm_screen_enable_altscreen(screen, 1)
        vterm_screen_reset(screen, 1)
    }

    deinit {
        vterm_free(terminal)
    }

    /// Feeds what the program wrote.
    func write(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        _ = vterm_input_write(terminal, base.assumingMemoryBound(to: CChar.self), bytes.count)
    }

    /// The answers libvterm produced since the last call (empty when none).
    func takeAnswers() -> [UInt8] {
        defer { answers.removeAll() }
        return answers
    }

    func resize(rows: Int32, columns: Int32) {
        self.rows = max(rows, 1)
        self.columns = max(columns, 1)
        vterm_set_size(terminal, self.rows, self.columns)
    }

    /// The bytes that draw the screen on a terminal of the same size: the main or alternate
    /// screen as the program has it, every cell with its attributes, then the cursor.
    func redrawSequence() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Int(rows * columns) + 64)
        func append(_ text: String) { out += Array(text.utf8) }
        // The alternate screen as the program has it (the gate's cover may have left either one).
        append(alternateScreen ? "\u{1B}[?1049h" : "\u{1B}[?1049l")
        append("\u{1B}[0m\u{1B}[H\u{1B}[2J")
        var current = ""
        var cell = VTermScreenCell()
        for row in 0..<rows {
            append("\u{1B}[\(row + 1);1H")
            var column: Int32 = 0
            while column < columns {
                guard vterm_screen_get_cell(screen, VTermPos(row: row, col: column), &cell) != 0 else { break }
                let attributes = sgr(cell)
                if attributes != current {
                    append(attributes)
                    current = attributes
                }
                let characters = withUnsafeBytes(of: cell.chars) { Array($0.bindMemory(to: UInt32.self)) }
                if characters[0] == 0 {
                    out.append(0x20)
                } else {
                    for scalar in characters.prefix(while: { $0 != 0 }) {
                        if let value = Unicode.Scalar(scalar) { out += Array(String(Character(value)).utf8) }
                    }
                }
                column += max(1, Int32(cell.width))
            }
        }
        append("\u{1B}[0m")
        var cursor = VTermPos()
        vterm_state_get_cursorpos(vterm_obtain_state(terminal), &cursor)
        append("\u{1B}[\(cursor.row + 1);\(cursor.col + 1)H")
        append(cursorVisible ? "\u{1B}[?25h" : "\u{1B}[?25l")
        return out
    }

    /// The SGR sequence of a cell's attributes and colours.
    private func sgr(_ cell: VTermScreenCell) -> String {
        var codes = ["0"]
        if cell.attrs.bold != 0 { codes.append("1") }
        if cell.attrs.italic != 0 { codes.append("3") }
        switch cell.attrs.underline {
        case 0: break
        case 2: codes.append("21")
        default: codes.append("4")
        }
        if cell.attrs.blink != 0 { codes.append("5") }
        if cell.attrs.reverse != 0 { codes.append("7") }
        if cell.attrs.strike != 0 { codes.append("9") }
        if let foreground = colour(cell.fg, foreground: true) { codes.append(foreground) }
        if let background = colour(cell.bg, foreground: false) { codes.append(background) }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }

    private func colour(_ colour: VTermColor, foreground: Bool) -> String? {
        let type = colour.type
        if type & UInt8(foreground ? VTERM_COLOR_DEFAULT_FG.rawValue : VTERM_COLOR_DEFAULT_BG.rawValue) != 0 { return nil }
        if type & UInt8(VTERM_COLOR_TYPE_MASK.rawValue) == UInt8(VTERM_COLOR_INDEXED.rawValue) {
            let index = Int(colour.indexed.idx)
            switch index {
            case 0..<8: return "\((foreground ? 30 : 40) + index)"
            case 8..<16: return "\((foreground ? 90 : 100) + index - 8)"
            default: return "\(foreground ? 38 : 48);5;\(index)"
            }
        }
        return "\(foreground ? 38 : 48);2;\(colour.rgb.red);\(colour.rgb.green);\(colour.rgb.blue)"
    }
}
