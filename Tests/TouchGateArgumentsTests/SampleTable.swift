import TouchGateArguments
import TouchGateCore

/// A small program's command table, apart from touchgate's: what the engine's tests parse and
/// render, so a test of the engine does not change when touchgate's commands do.
enum SampleTable {
    /// What the sample program's command lines become.
    enum Command: Equatable, Sendable {
        case help(topic: String?)
        case version
        case greet(name: String, loud: Bool)
        case configGet(key: String?)
        case configSet(key: String, value: String)
    }

    static let verbose = OptionSpec("--verbose", short: "-v", "say more")
    static let help = OptionSpec("--help", short: "-h", "help")
    static let version = OptionSpec("--version", "the version")
    static let loud = OptionSpec("--loud", "shout")
    static let file = OptionSpec("--file", value: "PATH", values: .files, "the file")
    static let colors = CompletionValues.words(["red", "green"])

    static let failed = ExitStatusSpec.Kind("failed")
    static let every = [ExitStatusSpec.Kind("success"), ExitStatusSpec.Kind("usage")]

    static let commands: [CommandSpec] = [
        CommandSpec("greet", summary: "greet someone", details: "Greets NAME, louder with --loud.",
                    arguments: [ArgumentSpec("NAME", values: colors)], options: [loud], jsonKeys: ["greeting"],
                    exits: [failed]) { line throws(UsageError) in
            guard line.arguments[0] != "nobody" else { throw UsageError("nobody to greet") }
            return .greet(name: line.arguments[0], loud: line.has(loud))
        },
        CommandSpec("config get", summary: "show a setting", details: "Shows KEY.",
                    arguments: [ArgumentSpec("KEY", optional: true)]) { line throws(UsageError) in
            .configGet(key: line.arguments.first)
        },
        CommandSpec("config set", summary: "change a setting", details: "Changes KEY to VALUE.",
                    arguments: [ArgumentSpec("KEY"), ArgumentSpec("VALUE")], options: [file]) { line throws(UsageError) in
            .configSet(key: line.arguments[0], value: line.arguments[1])
        },
        CommandSpec("help", summary: "this help", details: "Prints the help.",
                    arguments: [ArgumentSpec("COMMAND", optional: true, values: .commands)]) { line throws(UsageError) in
            .help(topic: line.arguments.first)
        },
    ]

    static let table = CommandSpecTable<Command>(
        program: "sample", abstract: "a program to test the engine with", commands: commands,
        globalOptions: [verbose, help, version], allOptions: [verbose, help, version, loud, file],
        exitStatuses: [
            ExitStatusSpec(every[0], .success, "success", "it worked"),
            ExitStatusSpec(failed, .unavailable, "failed", "the greeting failed"),
            ExitStatusSpec(every[1], .usage, "usage error", "a bad command line"),
        ],
        everyCommandExits: every,
        help: (help, { topic in .help(topic: topic) }), version: (version, .version))
}

extension CommandSpec {
    /// A spec of the sample table, whose builder returns the sample's command (as a program
    /// declares its own, e.g. touchgate's `CommandSpec+TouchGate.swift`).
    init(
        _ name: String, summary: String, details: String, arguments: [ArgumentSpec] = [], options: [OptionSpec] = [],
        jsonKeys: [String] = [], exits: [ExitStatusSpec.Kind] = [],
        build: @escaping @Sendable (CommandLineParser.Line) throws(UsageError) -> SampleTable.Command
    ) {
        self.init(name, summary: summary, details: details, arguments: arguments, options: options, jsonKeys: jsonKeys,
                  exits: exits, erasedBuild: build)
    }
}
