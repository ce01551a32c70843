import TouchGateCore

/// Parses a program's arguments against its ``CommandSpecTable``: a pure function of `[String]`,
/// so tests call it directly.
///
/// Options may stand before or after the command, as `--name value` or `--name=value`; `--`
/// ends the options. A usage error names the word it rejects and carries the command's usage line.
package enum CommandLineParser {
    /// A command line split into its options and arguments, once the command is known: what a
    /// ``CommandSpec`` builds its command from.
    package struct Line {
        /// The arguments after the command's name (and subcommand).
        package var arguments: [String] = []
        /// The options given, in the order they stand on the command line (a repeated option
        /// once each time), and beside each its value (`nil` for a flag).
        package private(set) var given: [OptionSpec] = []
        private var values: [String?] = []

        package init() {}

        mutating func record(_ option: OptionSpec, value: String?) {
            given.append(option)
            values.append(value)
        }

        /// The value of `option`; a repeated option keeps the last.
        package func value(_ option: OptionSpec) -> String? {
            given.lastIndex(of: option).flatMap { values[$0] }
        }

        package func has(_ option: OptionSpec) -> Bool {
            given.contains(option)
        }
    }

    /// A problem met while splitting the words, reported once the command is known (so the
    /// message can name it and the usage line be the command's).
    private enum Problem {
        case unknownOption(String)
        case missingValue(String)
        case unexpectedValue(String)
    }

    /// The command `arguments` name, built by its spec from the line, and the line (whose global
    /// options the program reads).
    package static func parse<Command>(
        _ arguments: [String], against table: CommandSpecTable<Command>
    ) throws(UsageError) -> (command: Command, line: Line) {
        try parse(arguments, against: table) { command, line throws(UsageError) in (command, line) }
    }

    /// What `finish` makes of the command `arguments` name (built by its spec from the line) and
    /// of the line: the program's reading of its global options (touchgate's `Invocation`).
    ///
    /// A usage error of the spec's builder or of `finish`, without a usage line of its own, is
    /// named by the command and given the command's usage line (`status: option '--system' does
    /// not go with '--store'`).
    package static func parse<Command, Parsed>(
        _ arguments: [String], against table: CommandSpecTable<Command>,
        finish: (Command, Line) throws(UsageError) -> Parsed
    ) throws(UsageError) -> Parsed {
        var line = Line()
        var positionals: [String] = []
        var problem: Problem?
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            // A negative number is a value ("config set grace-seconds -1" must reach validation).
            let looksNumeric = argument.dropFirst().first.map { $0.isNumber } ?? false
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" || looksNumeric {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = table.option(spelled: name) else {
                if problem == nil { problem = .unknownOption(name) }
                continue
            }
            if option.takesValue {
                if let inlineValue {
                    line.record(option, value: inlineValue)
                } else if index < arguments.count {
                    line.record(option, value: arguments[index])
                    index += 1
                } else if problem == nil {
                    problem = .missingValue(name)
                }
            } else if inlineValue != nil {
                if problem == nil { problem = .unexpectedValue(name) }
            } else {
                line.record(option, value: nil)
            }
        }

        // The command: its first word, and for a command with subcommands (config) the second.
        let word = positionals.first
        let group = word.map(table.commands(withWord:)) ?? []
        var spec: CommandSpec?
        var argumentStart = 1
        if group.count == 1 {
            spec = group[0]
        } else if !group.isEmpty, positionals.count > 1 {
            spec = table.command(named: positionals[0] + " " + positionals[1])
            argumentStart = 2
        }
        // Built only for an error: touchgate's gate parses before every prompt.
        var usage: String {
            spec.map { table.usageLine(of: $0.name) } ?? word.map(table.usageLine(of:)) ?? table.generalUsage
        }
        var context: String { group.isEmpty ? "" : " for \(spec?.name ?? group[0].word)" }

        switch problem {
        case .unknownOption(let name)?:
            throw UsageError("unknown option '\(name.escapedForMessage)'\(context)", usage: usage)
        case .missingValue(let name)?:
            throw UsageError("option '\(name)' needs a value", usage: usage)
        case .unexpectedValue(let name)?:
            throw UsageError("option '\(name)' takes no value", usage: usage)
        case nil: break
        }

        if let version = table.version, line.has(version.option), word == nil {
            return try finish(version.command, line)
        }
        if line.has(table.help.option) { return try finish(table.help.command(word), line) }
        guard let word else { throw UsageError("missing command (see \(table.program) --help)", usage: usage) }
        guard !group.isEmpty else {
            let suggestion = table.nearestCommandWord(to: word).map { "; did you mean '\($0)'?" } ?? ""
            throw UsageError("unknown command '\(word.escapedForMessage)'\(suggestion) (see \(table.program) --help)",
                             usage: usage)
        }
        guard let spec else {
            let names = group.compactMap(\.subcommand).joined(separator: " or ")
            if positionals.count < 2 { throw UsageError("\(word): missing subcommand (\(names))", usage: usage) }
            throw UsageError("\(word): unknown subcommand '\(positionals[1].escapedForMessage)' (expected \(names))",
                             usage: usage)
        }
        if let misplaced = line.given.first(where: { !table.accepts($0, for: spec) }) {
            throw UsageError("option '\(misplaced.long)' does not apply to '\(spec.name)'", usage: usage)
        }
        line.arguments = Array(positionals.dropFirst(argumentStart))
        if line.arguments.count > spec.arity.upperBound {
            throw UsageError("\(spec.name): unexpected argument '\(line.arguments[spec.arity.upperBound].escapedForMessage)'",
                             usage: usage)
        }
        if line.arguments.count < spec.arity.lowerBound {
            throw UsageError("\(spec.name): missing argument \(spec.arguments[line.arguments.count].name)", usage: usage)
        }
        do {
            return try finish(try table.command(builtBy: spec, from: line), line)
        } catch where error.exitCode == .usage && error.usage == nil {
            throw UsageError("\(spec.name): \(error.message)", usage: usage)
        }
    }
}
