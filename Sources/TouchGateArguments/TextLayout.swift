/// Plain text laid out for a terminal of 100 columns: the help's two columns and its wrapped
/// paragraphs, and the man page's lines (``Roff``).
package enum TextLayout {
    /// Two columns: the labels padded to one width, the text wrapped after it.
    package static func columns(_ rows: [(String, String)]) -> String {
        let width = min(rows.map(\.0.count).max() ?? 0, 28) + 2
        return rows.map { label, text in
            let padding = String(repeating: " ", count: 2 + width)
            let head = "  " + label + (label.count < width ? String(repeating: " ", count: width - label.count) : "\n" + padding)
            return head + wrapped(text, indent: padding, width: 100 - padding.count)
        }.joined(separator: "\n")
    }

    /// `text` wrapped at `width` columns; lines after the first start with `indent`.
    package static func wrapped(_ text: String, indent: String, width: Int = 100) -> String {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty, current.count + 1 + word.count > width {
                lines.append(current)
                current = String(word)
            } else {
                current += (current.isEmpty ? "" : " ") + word
            }
        }
        lines.append(current)
        return lines.joined(separator: "\n" + indent)
    }
}
