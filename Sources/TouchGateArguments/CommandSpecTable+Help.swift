extension CommandSpecTable {
    /// `PROGRAM --help`: the commands, the global options and the exit codes.
    package var overview: String {
        let commandRows = commands.map { ($0.name + $0.arguments.map { " " + $0.synopsis }.joined(), $0.summary) }
        return """
            \(program): \(abstract).

            usage: \(program) [options] COMMAND [ARGUMENTS] [command options]

            commands:
            \(TextLayout.columns(commandRows))

            options (before or after the command):
            \(TextLayout.columns(globalOptions.map { ($0.label, $0.help) }))

            exit codes:
            \(TextLayout.columns(exitStatuses.map { ($0.code, $0.meaning) }))

            \(program) help COMMAND: one command's options, JSON keys and exit codes. man \(program): the manual.
            """
    }

    /// `PROGRAM help COMMAND`: the usage line, what it does, its options (and the global ones),
    /// the JSON keys it prints and its exit codes; `nil` for an unknown command.
    package func help(for topic: String) -> String? {
        let matching = commands(matching: topic)
        guard !matching.isEmpty else { return nil }
        var parts: [String] = []
        for command in matching {
            var text = "usage: \(program) [options] \(command.synopsis)\n\n" + TextLayout.wrapped(command.details, indent: "")
            if !command.options.isEmpty {
                text += "\n\noptions:\n" + TextLayout.columns(command.options.map { ($0.label, $0.help) })
            }
            if !command.jsonKeys.isEmpty {
                text += "\n\n" + TextLayout.wrapped("JSON keys (--json): " + command.jsonKeys.joined(separator: ", "), indent: "  ")
            }
            text += "\n\n" + TextLayout.wrapped("exit codes: " + exitStatuses(of: command).map { "\($0.code) \($0.brief)" }
                .joined(separator: "; "), indent: "  ")
            parts.append(text)
        }
        return parts.joined(separator: "\n\n") + "\n\nglobal options (before or after the command):\n"
            + TextLayout.columns(globalOptions.map { ($0.label, $0.help) })
    }
}
