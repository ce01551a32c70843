extension CommandTable {
    /// `touchgate --help`: the commands, the global options and the exit codes.
    static var overview: String {
        let commandRows = commands.map { ($0.name + $0.arguments.map { " " + $0.synopsis }.joined(), $0.summary) }
        return """
            touchgate: the iOS "Touch ID app lock" for terminal sessions, through PAM.

            usage: touchgate [options] COMMAND [ARGUMENTS] [command options]

            commands:
            \(columns(commandRows))

            options (before or after the command):
            \(columns(globalOptions.map { ($0.label, $0.help) }))

            exit codes:
            \(columns(exitStatuses.map { ($0.code, $0.meaning) }))

            touchgate help COMMAND: one command's options, JSON keys and exit codes. man touchgate: the manual.
            """
    }

    /// `touchgate help COMMAND`: the usage line, what it does, its options (and the global ones),
    /// the JSON keys it prints and its exit codes; `nil` for an unknown command.
    static func help(for topic: String) -> String? {
        let matching = commands(matching: topic)
        guard !matching.isEmpty else { return nil }
        var parts: [String] = []
        for command in matching {
            var text = "usage: touchgate [options] \(command.synopsis)\n\n" + wrapped(command.details, indent: "")
            if !command.options.isEmpty {
                text += "\n\noptions:\n" + columns(command.options.map { ($0.label, $0.help) })
            }
            if !command.jsonKeys.isEmpty {
                text += "\n\n" + wrapped("JSON keys (--json): " + command.jsonKeys.joined(separator: ", "), indent: "  ")
            }
            text += "\n\n" + wrapped("exit codes: " + command.exitStatuses.map { "\($0.code) \($0.brief)" }
                .joined(separator: "; "), indent: "  ")
            parts.append(text)
        }
        return parts.joined(separator: "\n\n") + "\n\nglobal options (before or after the command):\n"
            + columns(globalOptions.map { ($0.label, $0.help) })
    }

    /// Two columns: the labels padded to one width, the text wrapped after it.
    static func columns(_ rows: [(String, String)]) -> String {
        let width = min(rows.map(\.0.count).max() ?? 0, 28) + 2
        return rows.map { label, text in
            let padding = String(repeating: " ", count: 2 + width)
            let head = "  " + label + (label.count < width ? String(repeating: " ", count: width - label.count) : "\n" + padding)
            return head + wrapped(text, indent: padding, width: 100 - padding.count)
        }.joined(separator: "\n")
    }

    /// `text` wrapped at `width` columns; lines after the first start with `indent`.
    static func wrapped(_ text: String, indent: String, width: Int = 100) -> String {
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
