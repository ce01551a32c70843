import CVTerm

/// A line kept in ``InnerScreen``'s scrollback: the cells libvterm pushed off the screen, or a
/// plain line the shortcut kept without feeding it to libvterm.
///
/// A plain line is its text and the two cells libvterm made of its neighbours in the same run (a
/// character cell and a blank one, read back from libvterm's screen): its cells are those, the
/// text's characters in the first, blanks to the width. Storing the text rather than the cells
/// is what keeps a long output cheap: only 80 bytes or so a line, not 80 cells of 40 bytes.
enum ScrollbackLine {
    case cells([VTermScreenCell])
    case plain(text: [UInt8], style: PlainLineStyle)

    /// The line's cells, as libvterm would have pushed them.
    var cells: [VTermScreenCell] {
        switch self {
        case .cells(let cells):
            return cells
        case .plain(let text, let style):
            var cells = [VTermScreenCell](repeating: style.blank, count: style.columns)
            for (column, byte) in text.enumerated() {
                cells[column] = style.written
                cells[column].chars.0 = UInt32(byte)
            }
            return cells
        }
    }
}
