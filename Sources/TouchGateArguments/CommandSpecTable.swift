import TouchGateCore

/// Every command and option of one program, described once: what the parser
/// (``CommandLineParser``), the help, the usage line of a usage error, the man page's generated
/// sections and the shell completions are derived from, so they cannot drift apart.
///
/// The program declares its table (touchgate's is `CommandTable`); this module knows no program,
/// as swift-argument-parser's `ArgumentParser` knows none of the commands it parses.
package struct CommandSpecTable<Command: Sendable>: Sendable {
    /// The program's name, as the usage line and the completions spell it: `touchgate`.
    package let program: String
    /// What the program is, in a few words: the help's first line and the man page's NAME.
    package let abstract: String
    /// Every command, in the order help and the man page list them.
    package let commands: [CommandSpec]
    /// The options every command accepts, before or after the command.
    package let globalOptions: [OptionSpec]
    /// Every option of the table, global ones first, once each: a literal list, so parsing does
    /// not walk the commands (the program's tests check that every command's options are here).
    package let allOptions: [OptionSpec]
    /// The exit statuses, in order, with their meanings (the man page's EXIT STATUS).
    package let exitStatuses: [ExitStatusSpec]
    /// The statuses any command can end with, besides the ones it lists (success, usage error).
    package let everyCommandExits: [ExitStatusSpec.Kind]
    /// `--help` and the command it asks for, given the command word it stands beside (if any).
    package let help: (option: OptionSpec, command: @Sendable (String?) -> Command)
    /// `--version` and the command it asks for when it stands without a command.
    package let version: (option: OptionSpec, command: Command)?

    /// The first words of every command, once each, in table order (`config` for `config get` and `config set`).
    package let commandWords: [String]

    package init(
        program: String, abstract: String, commands: [CommandSpec], globalOptions: [OptionSpec],
        allOptions: [OptionSpec], exitStatuses: [ExitStatusSpec], everyCommandExits: [ExitStatusSpec.Kind],
        help: (option: OptionSpec, command: @Sendable (String?) -> Command), version: (option: OptionSpec, command: Command)?
    ) {
        self.program = program
        self.abstract = abstract
        self.commands = commands
        self.globalOptions = globalOptions
        self.allOptions = allOptions
        self.exitStatuses = exitStatuses
        self.everyCommandExits = everyCommandExits
        self.help = help
        self.version = version
        var seen: [String] = []
        for command in commands where !seen.contains(command.word) { seen.append(command.word) }
        commandWords = seen
    }

    // MARK: - Lookups

    /// The command named `name` (one word, or two for a subcommand: `config get`).
    package func command(named name: String) -> CommandSpec? {
        commands.first { $0.name == name }
    }

    /// The command `spec` builds from `line`, as this table's `Command`.
    ///
    /// A spec of this table that builds anything else is a mistake in the program's declaration,
    /// not in its input: it stops the program.
    package func command(builtBy spec: CommandSpec, from line: CommandLineParser.Line) throws(UsageError) -> Command {
        let built = try spec.build(line)
        guard let command = built as? Command else {
            preconditionFailure("'\(spec.name)' built a \(type(of: built)), not a \(Command.self)")
        }
        return command
    }

    /// The commands whose first word is `word`.
    package func commands(withWord word: String) -> [CommandSpec] {
        commands.filter { $0.word == word }
    }

    /// What `help TOPIC` and a usage line name: the command named `topic` (`config get`), else
    /// every command whose first word it is (`config`); empty for no command.
    package func commands(matching topic: String) -> [CommandSpec] {
        command(named: topic).map { [$0] } ?? commands(withWord: topic)
    }

    /// The option spelled `spelling` (`-S`, `--stdin`), among all options of the table.
    ///
    /// A search of a short array: touchgate's gate parses before every prompt, and a
    /// dictionary would cost more to set up than the search.
    package func option(spelled spelling: String) -> OptionSpec? {
        allOptions.first { $0.long == spelling || $0.short == spelling }
    }

    /// Whether `option` may be given with `command`: a global option, or one of its own.
    package func accepts(_ option: OptionSpec, for command: CommandSpec) -> Bool {
        globalOptions.contains(option) || command.options.contains(option)
    }

    /// Every exit status `command` can end with, in the table's order.
    package func exitStatuses(of command: CommandSpec) -> [ExitStatusSpec] {
        exitStatuses.filter { everyCommandExits.contains($0.kind) || command.exits.contains($0.kind) }
    }

    /// The words that complete `values`: its own, or for `.commands` the command words.
    package func words(of values: CompletionValues) -> [String]? {
        values == .commands ? commandWords : values.words
    }

    /// `usage: touchgate [options] …` for the command(s) whose first word (or name) is `word`.
    package func usageLine(of word: String) -> String {
        let matching = commands(matching: word)
        guard !matching.isEmpty else { return generalUsage }
        return "usage: \(program) [options] " + matching.map(\.synopsis).joined(separator: " | ")
    }

    /// The usage line of a command line whose command is unknown or missing.
    package var generalUsage: String {
        "usage: \(program) [options] COMMAND [ARGUMENTS] (\(program) help lists the commands)"
    }
}
