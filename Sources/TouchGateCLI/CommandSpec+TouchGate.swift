import TouchGateArguments
import TouchGateCore

extension CommandSpec {
    /// A spec of touchgate's table, whose builder returns touchgate's ``Command`` (so it names
    /// the cases without a type: `.status`); the engine keeps the result type-erased.
    init(
        _ name: String, summary: String, details: String, arguments: [ArgumentSpec] = [], options: [OptionSpec] = [],
        jsonKeys: [String] = [], exits: [ExitStatusSpec.Kind] = [],
        build: @escaping @Sendable (CommandLineParser.Line) throws(UsageError) -> Command
    ) {
        self.init(name, summary: summary, details: details, arguments: arguments, options: options, jsonKeys: jsonKeys,
                  exits: exits, erasedBuild: build)
    }
}
