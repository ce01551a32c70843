import TouchGate
import TouchGateArguments

extension CommandLineParser {
    /// Parses `touchgate`'s arguments against ``CommandTable``: the command, and the global
    /// options as an ``Invocation``.
    package static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        try parse(arguments, against: CommandTable.table, finish: invocation)
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

extension CommandLineParser.Line {
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
