/// The one way text from outside touchgate reaches a terminal or standard error.
///
/// PAM modules' messages and prompts, session ids, `--reason`, user and host names and paths can
/// hold control characters: an `ESC[?1049l` from a module would lift the gate's cover and show the
/// session behind it, an `ESC]0;…BEL` would set the window title. Every such text goes through
/// ``sanitized(_:limit:)``, which shows each character a terminal would act on as `\u{..}`: C0,
/// DEL, C1, and the invisible bidirectional and format controls that reorder or hide what follows.
/// Invalid UTF-8 is shown as U+FFFD (``sanitized(bytes:limit:)``). The result is one printable line.
package enum TerminalText {
    /// `text` with every control character shown as `\u{..}`, cut after `limit` characters (with `…`).
    package static func sanitized(_ text: String, limit: Int? = nil) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if let limit, count == limit { return result + "…" }
            count += 1
            if isControl(scalar) {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Bytes as UTF-8 (each invalid sequence shown as U+FFFD), then ``sanitized(_:limit:)``.
    package static func sanitized(bytes: some Collection<UInt8>, limit: Int? = nil) -> String {
        sanitized(String(decoding: bytes, as: UTF8.self), limit: limit)
    }

    /// True when `text` would be shown unchanged: no control character and no U+FFFD (the mark
    /// left by invalid UTF-8). For identifiers checked where they enter, such as session ids.
    package static func isPrintable(_ text: String) -> Bool {
        !text.unicodeScalars.contains { isControl($0) || $0.value == 0xFFFD }
    }

    /// A character a terminal acts on or that changes how the rest of a line shows.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F: true
        // Bidirectional marks, embeddings, overrides and isolates; line and paragraph separators.
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: true
        default: false
        }
    }
}
