import TouchGateCore

/// One command of a program, as its ``CommandSpecTable`` describes it: the name, a summary, the
/// arguments, the options besides the global ones, the JSON keys it prints, the exit statuses it
/// can end with, and how a parsed command line becomes the program's `Command`.
package struct CommandSpec<Command: Sendable>: Sendable {
    /// One word, or two for a subcommand (`config get`).
    package let name: String
    package let summary: String
    /// A paragraph for `help COMMAND` and the man page.
    package let details: String
    package let arguments: [ArgumentSpec]
    package let options: [OptionSpec]
    package let jsonKeys: [String]
    /// The exit statuses beyond those every command can end with (``CommandSpecTable/everyCommandExits``).
    package let exits: [ExitStatusSpec.Kind]
    package let build: @Sendable (CommandLineParser.Line) throws(UsageError) -> Command

    package init(
        _ name: String, summary: String, details: String, arguments: [ArgumentSpec] = [], options: [OptionSpec] = [],
        jsonKeys: [String] = [], exits: [ExitStatusSpec.Kind] = [],
        build: @escaping @Sendable (CommandLineParser.Line) throws(UsageError) -> Command
    ) {
        self.name = name
        let words = name.split(separator: " ").map(String.init)
        word = words[0]
        subcommand = words.count > 1 ? words[1] : nil
        self.summary = summary
        self.details = details
        self.arguments = arguments
        self.options = options
        self.jsonKeys = jsonKeys
        self.exits = exits
        self.build = build
    }

    /// The JSON keys' names, without what the table says of each (`retryAfterSeconds` of
    /// `retryAfterSeconds (when throttled)`).
    package var jsonKeyNames: [String] {
        jsonKeys.map { key in String(key.prefix { $0 != " " && $0 != ":" }) }
    }

    /// The names of the keys printed only sometimes (`retryAfterSeconds (when throttled)`).
    package var conditionalJSONKeyNames: [String] {
        jsonKeys.filter { $0.contains("(when") }.map { key in String(key.prefix { $0 != " " && $0 != ":" }) }
    }

    /// The first word of the name: `config` for `config get`.
    package let word: String

    /// The second word of the name: `get` for `config get`, else nothing.
    package let subcommand: String?

    /// How many arguments it takes.
    package var arity: ClosedRange<Int> {
        arguments.filter { !$0.optional }.count...(arguments.last?.rest == true ? Int.max : arguments.count)
    }

    /// `enroll [--reason TEXT] [--no-interaction] [--session ID]`.
    package var synopsis: String {
        ([name] + arguments.map(\.synopsis) + options.map(\.synopsis)).joined(separator: " ")
    }
}
