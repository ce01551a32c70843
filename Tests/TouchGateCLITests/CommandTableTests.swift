import Foundation
import Testing
import TouchGate
import TouchGateArguments
import TouchGateCLI

/// The command table is the one description of the CLI: what `help COMMAND` (the real binary)
/// shows and what the parser accepts are the same options, for every command, and a usage error
/// prints the same usage line as the help.
@Suite struct CommandTableTests {
    /// A valid value for each value name the table uses (the test fails on a new one until it is added).
    static let sampleValues = [
        "PATH": "/tmp/x.sqlite", "ID": "0123abcd", "NAME": "bob", "DIR": "/tmp", "POLICY": "biometrics",
        "TEXT": "why", "N": "5", "EPOCH": "1",
    ]

    /// The words of a command line that runs `command` with valid arguments.
    static func commandLine(_ command: CommandSpec) -> [String] {
        command.name.split(separator: " ").map(String.init)
            + command.arguments.filter { !$0.optional }.map { $0.values.words?.first ?? "x" }
    }

    /// The sections of `help` output: the usage line of each command it shows, with the option
    /// spellings listed under its "options:" heading; and the global options at the end.
    static func helpSections(_ text: String) -> (commands: [String: (usage: String, options: Set<String>)], global: Set<String>) {
        var commands: [String: (usage: String, options: Set<String>)] = [:]
        var global: Set<String> = []
        var current: String?
        var inGlobal = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("usage: touchgate [options] ") {
                let synopsis = line.dropFirst("usage: touchgate [options] ".count)
                let name = CommandTable.commands.map(\.name).filter { synopsis == $0 || synopsis.hasPrefix($0 + " ") }
                    .max { $0.count < $1.count }
                current = name
                if let name { commands[name] = (line, []) }
                inGlobal = false
            } else if line.hasPrefix("global options") {
                inGlobal = true
            } else if line.hasPrefix("  -") {
                // The first column: "-S, --stdin" or "--store PATH", up to the two spaces before the help.
                let column = line.dropFirst(2).components(separatedBy: "  ")[0]
                let spellings = column.components(separatedBy: ", ").map { $0.split(separator: " ")[0] }.map(String.init)
                if inGlobal {
                    global.formUnion(spellings)
                } else if let current {
                    commands[current]?.options.formUnion(spellings)
                }
            }
        }
        return (commands, global)
    }

    @Test func everyOptionHelpShowsIsAcceptedAndEveryAcceptedOptionIsShown() throws {
        let world = try TestEnvironment()
        // Every spelling the table knows, and some it does not.
        let universe = CommandTable.allOptions.flatMap(\.spellings) + ["--frobnicate", "-x", "--stdin-x", "--man-page"]
        for command in CommandTable.commands {
            let help = try world.run(["help", command.word])
            #expect(help.status == 0, "\(help)")
            let sections = Self.helpSections(help.stdout)
            let section = try #require(sections.commands[command.name], "help \(command.word) shows no usage of \(command.name):\n\(help.stdout)")
            let shown = section.options.union(sections.global)

            var accepted: Set<String> = []
            for spelling in universe {
                var arguments = Self.commandLine(command) + [spelling]
                if let option = CommandTable.allOptions.first(where: { $0.spellings.contains(spelling) }), let name = option.valueName {
                    arguments.append(try #require(Self.sampleValues[name], "no sample value for \(name)"))
                }
                if (try? CommandLineParser.parse(arguments)) != nil { accepted.insert(spelling) }
            }
            #expect(shown == accepted, """
                \(command.name): help shows but the parser rejects \(shown.subtracting(accepted).sorted()); \
                the parser accepts but help does not show \(accepted.subtracting(shown).sorted())
                """)
            #expect((try? CommandLineParser.parse(Self.commandLine(command))) != nil, "\(command.name): its sample line does not parse")
        }
    }

    @Test func helpEnrollShowsEveryOptionEnrollTakes() throws {
        let world = try TestEnvironment()
        let help = try world.run(["help", "enroll"])
        for option in ["--reason TEXT", "--no-interaction", "--session ID"] {
            #expect(help.stdout.contains("\n  \(option) "), "\(option) missing:\n\(help.stdout)")
            _ = try CommandLineParser.parse(["enroll"] + option.split(separator: " ").map(String.init))
        }
    }

    @Test func aUsageErrorPrintsTheUsageLineHelpShows() throws {
        let world = try TestEnvironment()
        for command in CommandTable.commands {
            let help = try world.run(["help", command.word])
            let usage = try #require(Self.helpSections(help.stdout).commands[command.name]?.usage)
            let result = try world.run(Self.commandLine(command) + ["--frobnicate"])
            #expect(result.status == 64, "\(result)")
            #expect(result.stderrLines.map(String.init) == [
                "touchgate: unknown option '--frobnicate' for \(command.name)", usage,
            ], "\(result)")
        }
    }

    /// The JSON keys the table lists for a command are the keys it prints (the first word of each
    /// entry; an entry may explain itself after the name).
    @Test(arguments: [
        ["status"], ["version"], ["can-evaluate"], ["log"], ["event", "did-finish-launching", "--session", "s"],
        ["disable"], ["auth", "--no-interaction", "--policy", "biometrics"],
    ])
    func theTableListsTheJSONKeysACommandPrints(arguments: [String]) throws {
        let world = try TestEnvironment()
        let result = try world.runWithoutTerminal(["--json"] + arguments)
        let json = try #require(result.json, "\(result)")
        let spec = try #require(CommandTable.commands.first { $0.name == arguments[0] })
        let listed = Set(spec.jsonKeys.map { String($0.split(separator: " ")[0]) })
        // Keys listed "(when ...)" appear only then (retryAfterSeconds when throttled, status's
        // --system listing); every key printed must be listed.
        #expect(Set(json.keys).isSubset(of: listed), "\(arguments[0]) prints \(json.keys.sorted()), the table lists \(listed.sorted())")
        #expect(listed.subtracting(json.keys).isSubset(of: Set(spec.conditionalJSONKeyNames).union(["retryAfterSeconds"])),
                "\(arguments[0]): listed but not printed")
    }

    @Test func allOptionsHoldsEveryOptionOfEveryCommandOnce() {
        let all = CommandTable.allOptions.map(\.long)
        #expect(Set(all).count == all.count, "\(all)")
        for command in CommandTable.commands {
            for option in command.options { #expect(all.contains(option.long), "\(command.name): \(option.long)") }
        }
        let used = Set(CommandTable.globalOptions.map(\.long) + CommandTable.commands.flatMap { $0.options.map(\.long) })
        #expect(Set(all) == used, "options no command takes: \(Set(all).subtracting(used))")
    }

    @Test func completionValuesComeFromTheLibraryTypes() {
        #expect(CompletionValues.configKeys.words == Configuration.Key.allCases.map(\.rawValue))
        #expect(CompletionValues.events.words == LifecycleEvent.allCases.map(\.rawValue))
        #expect(CompletionValues.policies.words == AuthPolicy.allCases.map(\.rawValue))
        #expect(CompletionValues.tmuxHooks.words == TmuxHook.allCases.map(\.rawValue))
    }
}
