import TouchGate

/// Parses `touchgate`'s arguments: a pure function of `[String]`, so tests call it directly.
///
/// Options may stand before or after the command, as `--name value` or `--name=value`; `--`
/// ends the options.
public enum CommandLineParser {
    private struct OptionSpec {
        let names: [String]
        let takesValue: Bool
    }

    private static let globalOptions: [OptionSpec] = [
        OptionSpec(names: ["--store"], takesValue: true),
        OptionSpec(names: ["--user"], takesValue: true),
        OptionSpec(names: ["--json"], takesValue: false),
        OptionSpec(names: ["-S", "--stdin"], takesValue: false),
        OptionSpec(names: ["--pam-confdir"], takesValue: true),
        OptionSpec(names: ["-h", "--help"], takesValue: false),
        OptionSpec(names: ["--version"], takesValue: false),
    ]

    private static let policy = OptionSpec(names: ["--policy"], takesValue: true)
    private static let reason = OptionSpec(names: ["--reason"], takesValue: true)
    private static let noInteraction = OptionSpec(names: ["--no-interaction"], takesValue: false)
    private static let session = OptionSpec(names: ["--session"], takesValue: true)
    private static let limit = OptionSpec(names: ["--limit"], takesValue: true)
    private static let lock = OptionSpec(names: ["--lock"], takesValue: false)
    private static let idleSince = OptionSpec(names: ["--idle-since"], takesValue: true)
    private static let everyOption = globalOptions + [policy, reason, noInteraction, session, limit, lock, idleSince]

    /// The options `command` accepts besides the global ones, or `nil` for an unknown command.
    ///
    /// A switch rather than a dictionary literal: the runtime builds a dictionary of this private
    /// type through a metadata lookup by name, about 100,000 instructions (callgrind) that every
    /// start of the binary paid.
    private static func commandOptions(_ command: String) -> [OptionSpec]? {
        switch command {
        case "help", "version", "status", "tmux-conf", "tmux-hook", "shell-init", "demo": []
        case "enable", "disable", "enroll", "unenroll", "reset", "config": [reason, noInteraction, session]
        case "auth": [reason, noInteraction, session, policy]
        case "can-evaluate": [policy, session]
        case "log": [limit]
        case "event": [session]
        case "gate": [session, lock, idleSince]
        default: nil
        }
    }

    /// All command names, in the order help lists them.
    public static let commandNames = [
        "status", "enable", "disable", "enroll", "unenroll", "auth", "can-evaluate", "reset", "config", "log",
        "event", "gate", "tmux-conf", "shell-init", "demo", "help", "version",
    ]

    public static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var options: [String: String] = [:]
        var positionals: [String] = []
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
            guard let spec = everyOption.first(where: { $0.names.contains(name) }) else {
                throw UsageError("unknown option '\(name.escapedForMessage)'")
            }
            let key = spec.names.last!
            if spec.takesValue {
                if let inlineValue {
                    options[key] = inlineValue
                } else {
                    guard index < arguments.count else { throw UsageError("option '\(name)' needs a value") }
                    options[key] = arguments[index]
                    index += 1
                }
            } else {
                guard inlineValue == nil else { throw UsageError("option '\(name)' takes no value") }
                options[key] = ""
            }
        }

        let commandName = positionals.first
        if options["--version"] != nil, commandName == nil { return try invocation(.version, options) }
        if options["--help"] != nil { return try invocation(.help(topic: commandName), options) }
        guard let commandName else { throw UsageError("missing command (see touchgate --help)") }
        guard let allowed = commandOptions(commandName) else {
            throw UsageError("unknown command '\(commandName.escapedForMessage)' (see touchgate --help)")
        }
        let acceptedNames = (globalOptions + allowed).map { $0.names.last! }
        for name in options.keys.sorted() where !acceptedNames.contains(name) {
            throw UsageError("option '\(name)' does not apply to '\(commandName)'")
        }
        let rest = Array(positionals.dropFirst())
        func expectArguments(_ range: ClosedRange<Int>, _ usage: String) throws(UsageError) {
            guard range.contains(rest.count) else { throw UsageError("usage: touchgate \(usage)") }
        }

        var evaluation = EvaluationOptions()
        evaluation.reason = options["--reason"]
        evaluation.noInteraction = options["--no-interaction"] != nil
        evaluation.session = options["--session"]
        if let name = options["--policy"] {
            guard let parsed = AuthPolicy(rawValue: name) else {
                throw UsageError("unknown policy '\(name.escapedForMessage)': expected biometrics or device-owner")
            }
            evaluation.policy = parsed
        }

        let command: Command
        switch commandName {
        case "help":
            try expectArguments(0...1, "help [COMMAND]")
            command = .help(topic: rest.first)
        case "version": try expectArguments(0...0, "version"); command = .version
        case "status": try expectArguments(0...0, "status"); command = .status
        case "enable": try expectArguments(0...0, "enable"); command = .enable(evaluation)
        case "disable": try expectArguments(0...0, "disable"); command = .disable(evaluation)
        case "enroll": try expectArguments(0...0, "enroll"); command = .enroll(evaluation)
        case "unenroll": try expectArguments(0...0, "unenroll"); command = .unenroll(evaluation)
        case "auth": try expectArguments(0...0, "auth [--policy POLICY] [--reason TEXT] [--no-interaction]"); command = .auth(evaluation)
        case "can-evaluate": try expectArguments(0...0, "can-evaluate [--policy POLICY]"); command = .canEvaluate(evaluation)
        case "reset": try expectArguments(0...0, "reset"); command = .reset(evaluation)
        case "config":
            command = try configCommand(rest, evaluation)
        case "log":
            try expectArguments(0...0, "log [--limit N]")
            let text = options["--limit"] ?? "20"
            guard let limit = Int(text), (1...100_000).contains(limit) else {
                throw UsageError("invalid value '\(text.escapedForMessage)' for --limit: expected a whole number from 1 to 100000",
                                 exitCode: .badValue)
            }
            command = .log(limit: limit)
        case "event":
            try expectArguments(1...1, "event EVENT [--session ID]")
            guard let event = LifecycleEvent(rawValue: rest[0]) else {
                throw UsageError("unknown event '\(rest[0].escapedForMessage)': expected one of "
                    + LifecycleEvent.allCases.map(\.rawValue).joined(separator: ", "), exitCode: .badValue)
            }
            command = .event(event, session: options["--session"])
        case "gate":
            try expectArguments(0...0, "gate [--session ID] [--lock] [--idle-since EPOCH]")
            var gate = GateOptions()
            gate.session = options["--session"]
            gate.lockRequest = options["--lock"] != nil
            if let text = options["--idle-since"] {
                guard let since = Double(text), since.isFinite, since >= 0 else {
                    throw UsageError("invalid value '\(text.escapedForMessage)' for --idle-since: expected seconds since 1970",
                                     exitCode: .badValue)
                }
                gate.idleSince = since
            }
            command = .gate(gate)
        case "tmux-conf": try expectArguments(0...0, "tmux-conf"); command = .tmuxConf
        case "tmux-hook":
            try expectArguments(2...3, "tmux-hook HOOK CLIENT [SESSION]")
            guard let hook = TmuxHook(rawValue: rest[0]) else {
                throw UsageError("unknown tmux hook '\(rest[0].escapedForMessage)'", exitCode: .badValue)
            }
            command = .tmuxHook(hook, client: rest[1], session: rest.count > 2 ? rest[2] : nil)
        case "shell-init":
            try expectArguments(1...1, "shell-init bash|zsh")
            guard ["bash", "zsh"].contains(rest[0]) else {
                throw UsageError("unsupported shell '\(rest[0].escapedForMessage)': expected bash or zsh", exitCode: .badValue)
            }
            command = .shellInit(shell: rest[0])
        default:
            try expectArguments(0...0, "demo"); command = .demo
        }
        return try invocation(command, options)
    }

    private static func configCommand(_ rest: [String], _ evaluation: EvaluationOptions) throws(UsageError) -> Command {
        func key(_ name: String) throws(UsageError) -> Configuration.Key {
            guard let key = Configuration.Key(rawValue: name) else {
                throw UsageError("unknown config key '\(name.escapedForMessage)': expected one of "
                    + Configuration.Key.allCases.map(\.rawValue).joined(separator: ", "), exitCode: .badValue)
            }
            return key
        }
        switch (rest.first, rest.count) {
        case ("get", 1): return .configGet(key: nil)
        case ("get", 2): return .configGet(key: try key(rest[1]))
        case ("set", 3): return .configSet(key: try key(rest[1]), value: rest[2], evaluation)
        default: throw UsageError("usage: touchgate config get [KEY] | config set KEY VALUE")
        }
    }

    private static func invocation(_ command: Command, _ options: [String: String]) throws(UsageError) -> Invocation {
        var invocation = Invocation(command: command)
        invocation.storePath = options["--store"]
        invocation.user = options["--user"]
        invocation.json = options["--json"] != nil
        invocation.answersFromStandardInput = options["--stdin"] != nil
        invocation.pamConfigurationDirectory = options["--pam-confdir"]
        for (name, value) in [("--store", invocation.storePath), ("--user", invocation.user),
                              ("--pam-confdir", invocation.pamConfigurationDirectory)] {
            if let value, value.isEmpty { throw UsageError("option '\(name)' needs a non-empty value", exitCode: .badValue) }
        }
        return invocation
    }
}
