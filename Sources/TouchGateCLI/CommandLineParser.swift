import TouchGate

/// Parses `touchgate`'s arguments against ``CommandTable``: a pure function of `[String]`, so
/// tests call it directly.
///
/// Options may stand before or after the command, as `--name value` or `--name=value`; `--`
/// ends the options. A usage error names the word it rejects and carries the command's usage line.
package enum CommandLineParser {
    /// A command line split into its options and arguments, once the command is known: what a
    /// ``CommandSpec`` builds its ``Command`` from.
    struct Line {
        /// The arguments after the command's name (and subcommand).
        var arguments: [String] = []
        /// The options given, in the order they stand on the command line (a repeated option
        /// once each time), and beside each its value (`nil` for a flag).
        private(set) var given: [OptionSpec] = []
        private var values: [String?] = []

        mutating func record(_ option: OptionSpec, value: String?) {
            given.append(option)
            values.append(value)
        }

        /// The value of `option`; a repeated option keeps the last.
        func value(_ option: OptionSpec) -> String? {
            given.lastIndex(of: option).flatMap { values[$0] }
        }

        func has(_ option: OptionSpec) -> Bool {
            given.contains(option)
        }

        /// The options of an evaluating command.
        func evaluation() throws(UsageError) -> EvaluationOptions {
            var evaluation = EvaluationOptions()
            evaluation.reason = value(.reason)
            evaluation.noInteraction = has(.noInteraction)
            evaluation.session = value(.session)
            if let name = value(.policy) {
                guard let parsed = AuthPolicy(rawValue: name) else {
                    throw UsageError("unknown policy '\(name.escapedForMessage)': expected biometrics or device-owner")
                }
                evaluation.policy = parsed
            }
            return evaluation
        }
    }

    /// A problem met while splitting the words, reported once the command is known (so the
    /// message can name it and the usage line be the command's).
    private enum Problem {
        case unknownOption(String)
        case missingValue(String)
        case unexpectedValue(String)
    }

    package static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
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
            guard let option = CommandTable.option(spelled: name) else {
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
        let group = word.map(CommandTable.commands(withWord:)) ?? []
        var spec: CommandSpec?
        var argumentStart = 1
        if group.count == 1 {
            spec = group[0]
        } else if !group.isEmpty, positionals.count > 1 {
            spec = CommandTable.command(named: positionals[0] + " " + positionals[1])
            argumentStart = 2
        }
        // Built only for an error: the gate's fast path parses before every prompt.
        var usage: String {
            spec.map { CommandTable.usageLine(of: $0.name) } ?? word.map(CommandTable.usageLine(of:)) ?? CommandTable.generalUsage
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

        if line.has(.version), word == nil { return try invocation(.version, line) }
        if line.has(.help) { return try invocation(.help(topic: word), line) }
        guard let word else { throw UsageError("missing command (see touchgate --help)", usage: usage) }
        guard !group.isEmpty else {
            let suggestion = nearestCommandWord(to: word).map { "; did you mean '\($0)'?" } ?? ""
            throw UsageError("unknown command '\(word.escapedForMessage)'\(suggestion) (see touchgate --help)", usage: usage)
        }
        guard let spec else {
            let names = group.compactMap(\.subcommand).joined(separator: " or ")
            if positionals.count < 2 { throw UsageError("\(word): missing subcommand (\(names))", usage: usage) }
            throw UsageError("\(word): unknown subcommand '\(positionals[1].escapedForMessage)' (expected \(names))",
                             usage: usage)
        }
        if let misplaced = line.given.first(where: { !spec.accepts($0) }) {
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
            return try invocation(try spec.build(line), line)
        } catch where error.exitCode == .usage && error.usage == nil {
            throw UsageError("\(spec.name): \(error.message)", usage: usage)
        }
    }

    private static func invocation(_ command: Command, _ line: Line) throws(UsageError) -> Invocation {
        var invocation = Invocation(command: command)
        invocation.storePath = line.value(.store)
        invocation.user = line.value(.user)
        invocation.storeID = line.value(.storeID)
        invocation.system = line.has(.system)
        if invocation.system, line.value(.store) != nil || line.value(.storeID) != nil {
            throw UsageError("option '--system' does not go with '--store' or '--store-id'")
        }
        invocation.json = line.has(.json)
        invocation.answersFromStandardInput = line.has(.stdin)
        invocation.pamConfigurationDirectory = line.value(.pamConfdir)
        for option in [OptionSpec.store, .user, .pamConfdir] where line.value(option)?.isEmpty == true {
            throw UsageError("option '\(option.long)' needs a non-empty value", exitCode: .badValue)
        }
        if let id = line.value(.storeID) {
            // What `touchgate status` shows: lowercase hexadecimal.
            guard !id.isEmpty, id.utf8.count <= 64,
                  id.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                throw UsageError("invalid value '\(id.escapedForMessage)' for --store-id: expected the store id that touchgate status shows",
                                 exitCode: .badValue)
            }
        }
        return invocation
    }
}

/// The command word closest to `word` (a typo such as `statsu` for `status`): the one fewest
/// single-character edits away (insertions, deletions, substitutions, or two neighbours swapped),
/// when that is at most a third of its length (at least one edit); the table's first on a tie.
func nearestCommandWord(to word: String) -> String? {
    let typed = Array(word.lowercased().utf8)
    guard !typed.isEmpty, typed.count <= 64 else { return nil }
    var best: (word: String, distance: Int)?
    var seen: Set<String> = []
    for command in CommandTable.commands where seen.insert(command.word).inserted {
        let candidate = Array(command.word.utf8)
        let distance = editDistance(typed, candidate)
        guard distance <= max(1, candidate.count / 3) else { continue }
        if best == nil || distance < best!.distance { best = (command.word, distance) }
    }
    return best?.word
}

/// The optimal-string-alignment distance between `a` and `b`.
func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { table[i][0] = i }
    for j in 0...b.count { table[0][j] = j }
    for i in 1...a.count {
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
            }
        }
    }
    return table[a.count][b.count]
}
