import TouchGate

/// Parses `touchgate`'s arguments: a pure function of `[String]`, so tests call it directly.
///
/// Options may stand before or after the command, as `--name value` or `--name=value`; `--`
/// ends the options.
public enum CommandLineParser {
    /// An option `touchgate` knows. The raw values follow the order of the long names, which is
    /// the order a usage error names them in.
    private enum Option: Int {
        case help, idleSince, json, limit, lock, noInteraction, pamConfdir, policy, reason, session, stdin, store, storeID, unit, user, version

        /// The option spelled `name` on the command line (without an `=value`), or `nil`.
        init?(spelled name: String) {
            switch name {
            case "-h", "--help": self = .help
            case "--idle-since": self = .idleSince
            case "--json": self = .json
            case "--limit": self = .limit
            case "--lock": self = .lock
            case "--no-interaction": self = .noInteraction
            case "--pam-confdir": self = .pamConfdir
            case "--policy": self = .policy
            case "--reason": self = .reason
            case "--session": self = .session
            case "-S", "--stdin": self = .stdin
            case "--store": self = .store
            case "--store-id": self = .storeID
            case "--unit": self = .unit
            case "--user": self = .user
            case "--version": self = .version
            default: return nil
            }
        }

        /// The long name, as messages spell it.
        var name: String {
            switch self {
            case .help: "--help"
            case .idleSince: "--idle-since"
            case .json: "--json"
            case .limit: "--limit"
            case .lock: "--lock"
            case .noInteraction: "--no-interaction"
            case .pamConfdir: "--pam-confdir"
            case .policy: "--policy"
            case .reason: "--reason"
            case .session: "--session"
            case .stdin: "--stdin"
            case .store: "--store"
            case .storeID: "--store-id"
            case .unit: "--unit"
            case .user: "--user"
            case .version: "--version"
            }
        }

        var takesValue: Bool {
            switch self {
            case .idleSince, .limit, .pamConfdir, .policy, .reason, .session, .store, .storeID, .user: true
            case .help, .json, .lock, .noInteraction, .stdin, .unit, .version: false
            }
        }

        var bit: UInt16 { 1 << rawValue }

        /// The options every command accepts.
        static let global: UInt16 = Option.store.bit | Option.storeID.bit | Option.user.bit | Option.json.bit | Option.stdin.bit
            | Option.pamConfdir.bit | Option.help.bit | Option.version.bit

        /// The options of every command that runs an evaluation.
        static let evaluating: UInt16 = Option.reason.bit | Option.noInteraction.bit | Option.session.bit
    }

    /// The options given on one command line: which ones, and the values of those that take one.
    ///
    /// Fields and a bit set rather than a dictionary or an array of a type of this module: the
    /// runtime builds the metadata of either by name at the first use, at every start.
    private struct GivenOptions {
        private(set) var present: UInt16 = 0
        private var idleSince, limit, pamConfdir, policy, reason, session, store, storeID, user: String?

        func contains(_ option: Option) -> Bool { present & option.bit != 0 }

        /// Records `option`, with `value` for one that takes a value; a repeated option keeps the last.
        mutating func record(_ option: Option, value: String?) {
            present |= option.bit
            switch option {
            case .idleSince: idleSince = value
            case .limit: limit = value
            case .pamConfdir: pamConfdir = value
            case .policy: policy = value
            case .reason: reason = value
            case .session: session = value
            case .store: store = value
            case .storeID: storeID = value
            case .user: user = value
            case .help, .json, .lock, .noInteraction, .stdin, .unit, .version: break
            }
        }

        subscript(option: Option) -> String? {
            switch option {
            case .idleSince: idleSince
            case .limit: limit
            case .pamConfdir: pamConfdir
            case .policy: policy
            case .reason: reason
            case .session: session
            case .store: store
            case .storeID: storeID
            case .user: user
            case .help, .json, .lock, .noInteraction, .stdin, .unit, .version: nil
            }
        }
    }

    /// The options `command` accepts besides the global ones, or `nil` for an unknown command.
    private static func commandOptions(_ command: String) -> UInt16? {
        switch command {
        case "help", "version", "status", "tmux-conf", "tmux-hook", "shell-init", "demo": 0
        case "enable", "disable", "enroll", "unenroll", "reset", "config": Option.evaluating
        case "auth": Option.evaluating | Option.policy.bit
        case "can-evaluate": Option.policy.bit | Option.session.bit
        case "log": Option.limit.bit
        case "event": Option.session.bit
        case "gate": Option.session.bit | Option.lock.bit | Option.idleSince.bit
        case "watch": Option.unit.bit
        default: nil
        }
    }

    /// All command names, in the order help lists them.
    public static let commandNames = [
        "status", "enable", "disable", "enroll", "unenroll", "auth", "can-evaluate", "reset", "config", "log",
        "event", "gate", "watch", "tmux-conf", "shell-init", "demo", "help", "version",
    ]

    public static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var options = GivenOptions()
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
            guard let option = Option(spelled: name) else {
                throw UsageError("unknown option '\(name.escapedForMessage)'")
            }
            if option.takesValue {
                if let inlineValue {
                    options.record(option, value: inlineValue)
                } else {
                    guard index < arguments.count else { throw UsageError("option '\(name)' needs a value") }
                    options.record(option, value: arguments[index])
                    index += 1
                }
            } else {
                guard inlineValue == nil else { throw UsageError("option '\(name)' takes no value") }
                options.record(option, value: nil)
            }
        }

        let commandName = positionals.first
        if options.contains(.version), commandName == nil { return try invocation(.version, options) }
        if options.contains(.help) { return try invocation(.help(topic: commandName), options) }
        guard let commandName else { throw UsageError("missing command (see touchgate --help)") }
        guard let allowed = commandOptions(commandName) else {
            throw UsageError("unknown command '\(commandName.escapedForMessage)' (see touchgate --help)")
        }
        let misplaced = options.present & ~(Option.global | allowed)
        if misplaced != 0, let option = Option(rawValue: misplaced.trailingZeroBitCount) {
            throw UsageError("option '\(option.name)' does not apply to '\(commandName)'")
        }
        let rest = Array(positionals.dropFirst())
        func expectArguments(_ range: ClosedRange<Int>, _ usage: String) throws(UsageError) {
            guard range.contains(rest.count) else { throw UsageError("usage: touchgate \(usage)") }
        }

        var evaluation = EvaluationOptions()
        evaluation.reason = options[.reason]
        evaluation.noInteraction = options.contains(.noInteraction)
        evaluation.session = options[.session]
        if let name = options[.policy] {
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
            let text = options[.limit] ?? "20"
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
            command = .event(event, session: options[.session])
        case "gate":
            try expectArguments(0...0, "gate [--session ID] [--lock] [--idle-since EPOCH]")
            var gate = GateOptions()
            gate.session = options[.session]
            gate.lockRequest = options.contains(.lock)
            if let text = options[.idleSince] {
                guard let since = Double(text), since.isFinite, since >= 0 else {
                    throw UsageError("invalid value '\(text.escapedForMessage)' for --idle-since: expected seconds since 1970",
                                     exitCode: .badValue)
                }
                gate.idleSince = since
            }
            command = .gate(gate)
        case "watch": try expectArguments(0...0, "watch [--unit]"); command = .watch(unit: options.contains(.unit))
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

    private static func invocation(_ command: Command, _ options: GivenOptions) throws(UsageError) -> Invocation {
        var invocation = Invocation(command: command)
        invocation.storePath = options[.store]
        invocation.user = options[.user]
        invocation.storeID = options[.storeID]
        invocation.json = options.contains(.json)
        invocation.answersFromStandardInput = options.contains(.stdin)
        invocation.pamConfigurationDirectory = options[.pamConfdir]
        func requireNonEmpty(_ option: Option) throws(UsageError) {
            if options[option]?.isEmpty == true {
                throw UsageError("option '\(option.name)' needs a non-empty value", exitCode: .badValue)
            }
        }
        try requireNonEmpty(.store)
        try requireNonEmpty(.user)
        try requireNonEmpty(.pamConfdir)
        if let id = options[.storeID] {
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
