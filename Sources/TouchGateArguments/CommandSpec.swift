import TouchGateCore

/// One command of a program, as its ``CommandSpecTable`` describes it: the name, a summary, the
/// arguments, the options besides the global ones, the JSON keys it prints, the exit statuses it
/// can end with, and how a parsed command line becomes the program's command.
///
/// Not generic over the program's command type: the table and the parser run in every process
/// (touchgate's gate before every prompt), and generic code in this module runs unspecialized for
/// a program in another, reaching each spec through its metadata (≈ 300,000 instructions more on
/// the gate's fast path, bench/RESULTS.md). The builder's result is the one type-erased value; the
/// table (``CommandSpecTable``) takes it back as its `Command`. A program declares its specs
/// through an initializer of its own whose builder returns its `Command` (touchgate's:
/// `CommandSpec+TouchGate.swift`), so a builder can name its cases without a type.
package struct CommandSpec: Sendable {
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
    /// Builds the program's command from the parsed line (a usage error for a line it refuses).
    package let build: @Sendable (CommandLineParser.Line) throws(UsageError) -> any Sendable

    package init(
        _ name: String, summary: String, details: String, arguments: [ArgumentSpec] = [], options: [OptionSpec] = [],
        jsonKeys: [String] = [], exits: [ExitStatusSpec.Kind] = [],
        erasedBuild: @escaping @Sendable (CommandLineParser.Line) throws(UsageError) -> any Sendable
    ) {
        self.name = name
        // One search for the space, not `split`: the table's specs are made in every process.
        if let space = name.utf8.firstIndex(of: UInt8(ascii: " ")) {
            word = String(name[..<space])
            subcommand = String(name[name.index(after: space)...])
        } else {
            word = name
            subcommand = nil
        }
        self.summary = summary
        self.details = details
        self.arguments = arguments
        self.options = options
        self.jsonKeys = jsonKeys
        self.exits = exits
        self.build = erasedBuild
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
