import CVTerm

/// How libvterm draws a plain line in one run: a character's cell (its character aside), a blank
/// cell, and the width of the screen then.
struct PlainLineStyle {
    let written: VTermScreenCell
    let blank: VTermScreenCell
    let columns: Int
}
