import Foundation
import Testing
import TouchGate
import TouchGateArguments
import TouchGateCLI

/// `CommandLineParser.parse` is a pure function of the arguments; these call it directly.
@Suite struct CoreCommandLineParserTests {
    private func parse(_ arguments: [String]) throws -> Invocation {
        try CommandLineParser.parse(arguments)
    }

    /// The error `parse` throws for `arguments`, or `nil` when it parses.
    private func failure(_ arguments: [String]) -> UsageError? {
        do {
            _ = try CommandLineParser.parse(arguments)
            return nil
        } catch {
            return error
        }
    }

    @Test func optionsBeforeOrAfterTheCommandMeanTheSame() throws {
        let before = try parse(["--json", "--store", "/tmp/s.sqlite", "--user", "bob", "-S", "status"])
        let after = try parse(["status", "--json", "--store", "/tmp/s.sqlite", "--user", "bob", "-S"])
        let mixed = try parse(["--user", "bob", "status", "--stdin", "--store", "/tmp/s.sqlite", "--json"])
        #expect(before == after)
        #expect(before == mixed)
        #expect(before.command == .status)
        #expect(before.json)
        #expect(before.answersFromStandardInput)
        #expect(before.storePath == "/tmp/s.sqlite")
        #expect(before.user == "bob")
        #expect(before.pamConfigurationDirectory == nil)
    }

    @Test func storeIDIsAGlobalOptionOfLowercaseHex() throws {
        let id = "0123456789abcdef0123456789abcdef"
        for arguments in [["--store-id", id, "gate"], ["gate", "--store-id=\(id)"], ["status", "--store-id", id]] {
            #expect(try parse(arguments).storeID == id, "\(arguments)")
        }
        #expect(try parse(["status"]).storeID == nil)
        for bad in ["", "ABC", "xyz", String(repeating: "a", count: 65)] {
            #expect(failure(["--store-id", bad, "status"])?.exitCode == .badValue, "'\(bad)'")
        }
        #expect(failure(["status", "--store-id"])?.exitCode == .usage)
    }

    @Test func watchTakesUnitAndNothingElse() throws {
        #expect(try parse(["watch"]).command == .watch(unit: false))
        #expect(try parse(["--unit", "watch"]).command == .watch(unit: true))
        #expect(try parse(["watch", "--unit", "--store", "/s"]).storePath == "/s")
        #expect(failure(["status", "--unit"])?.message == "option '--unit' does not apply to 'status'")
        #expect(failure(["watch", "--session", "x"])?.message == "option '--session' does not apply to 'watch'")
        #expect(failure(["watch", "now"])?.message == "watch: unexpected argument 'now'")
        #expect(failure(["watch", "now"])?.usage == "usage: touchgate [options] watch [--unit]")
        #expect(failure(["watch", "--unit=yes"])?.exitCode == .usage)
    }

    @Test func equalsFormGivesTheSameValues() throws {
        let equals = try parse(["--store=/x/y.sqlite", "auth", "--policy=biometrics", "--reason=unlock it",
                                "--user=alice", "--pam-confdir=/etc/x"])
        let spaced = try parse(["--store", "/x/y.sqlite", "auth", "--policy", "biometrics", "--reason", "unlock it",
                                "--user", "alice", "--pam-confdir", "/etc/x"])
        #expect(equals == spaced)
        var options = EvaluationOptions()
        options.policy = .biometrics
        options.reason = "unlock it"
        #expect(equals.command == .auth(options))
        #expect(equals.storePath == "/x/y.sqlite")
        #expect(equals.pamConfigurationDirectory == "/etc/x")
        // A value may itself contain '=' and start with '-' in the equals form.
        let tricky = try parse(["auth", "--reason=a=b", "--store=-odd"])
        #expect(tricky.storePath == "-odd")
        guard case .auth(let trickyOptions) = tricky.command else { throw TestFailure("not auth: \(tricky)") }
        #expect(trickyOptions.reason == "a=b")
    }

    @Test func evaluatingCommandsAndTheirOptions() throws {
        var options = EvaluationOptions()
        #expect(try parse(["auth"]).command == .auth(options))
        options.policy = .deviceOwner
        options.noInteraction = true
        #expect(try parse(["auth", "--policy", "device-owner", "--no-interaction"]).command == .auth(options))
        #expect(try parse(["--no-interaction", "enable"]).command == .enable(options))
        #expect(try parse(["disable", "--no-interaction"]).command == .disable(options))
        #expect(try parse(["reset", "--no-interaction"]).command == .reset(options))
        var check = EvaluationOptions()
        check.policy = .biometrics
        #expect(try parse(["can-evaluate", "--policy", "biometrics"]).command == .canEvaluate(check))
        #expect(try parse(["enroll"]).command == .enroll(EvaluationOptions()))
        #expect(try parse(["unenroll"]).command == .unenroll(EvaluationOptions()))
    }

    @Test func configAndLogCommands() throws {
        #expect(try parse(["config", "get"]).command == .configGet(key: nil))
        #expect(try parse(["config", "get", "reuse-seconds"]).command == .configGet(key: .reuseSeconds))
        #expect(try parse(["config", "set", "passcode-delays", "0,0,60"]).command
            == .configSet(key: .passcodeDelays, value: "0,0,60", EvaluationOptions()))
        // An empty value turns the biometric factor off; it is a value, not a missing argument.
        #expect(try parse(["config", "set", "biometric-service", ""]).command
            == .configSet(key: .biometricService, value: "", EvaluationOptions()))
        #expect(try parse(["log"]).command == .log(limit: 20))
        #expect(try parse(["log", "--limit", "5"]).command == .log(limit: 5))
        #expect(try parse(["--limit=100000", "log"]).command == .log(limit: 100_000))
    }

    @Test func doubleDashEndsTheOptions() throws {
        #expect(try parse(["--json", "--", "status"]).command == .status)
        #expect(failure(["--", "--json"])?.exitCode == .usage, "'--json' after '--' is a command name")
    }

    @Test func helpAndVersion() throws {
        #expect(try parse(["--help"]).command == .help(topic: nil))
        #expect(try parse(["-h"]).command == .help(topic: nil))
        #expect(try parse(["help"]).command == .help(topic: nil))
        #expect(try parse(["auth", "--help"]).command == .help(topic: "auth"))
        #expect(try parse(["--help", "status"]).command == .help(topic: "status"))
        #expect(try parse(["help", "config"]).command == .help(topic: "config"))
        // --help wins over an otherwise bad command line's missing pieces.
        #expect(try parse(["--help", "--json"]).command == .help(topic: nil))
        #expect(try parse(["--version"]).command == .version)
        #expect(try parse(["version"]).command == .version)
    }

    @Test(arguments: [
        ["--bogus", "status"], ["status", "--bogus"], ["status", "-x"], ["--bogus=1", "status"],
        ["frobnicate"], [], ["--json"], ["--store"], ["status", "--store"],
        ["--json=yes", "status"], ["-S=1", "auth"],
        ["status", "--policy", "biometrics"], ["log", "--reason", "x"], ["status", "extra"],
        ["config"], ["config", "set", "reuse-seconds"], ["config", "get", "a", "b"], ["config", "unset", "x"],
        ["auth", "--policy", "face-id"], ["auth", "--policy=deviceOwner"], ["auth", "--policy", ""],
        ["auth", "now"],
    ])
    func malformedCommandLinesExit64(arguments: [String]) {
        let error = failure(arguments)
        #expect(error != nil, "\(arguments) parsed")
        #expect(error?.exitCode == .usage, "\(arguments): \(String(describing: error))")
        #expect(error.map { !$0.message.isEmpty && !$0.message.contains("\n") } ?? false)
    }

    @Test(arguments: [
        ["log", "--limit", "0"], ["log", "--limit", "-1"], ["log", "--limit", "abc"], ["log", "--limit=100001"],
        ["log", "--limit", ""], ["config", "get", "no-such-key"], ["config", "set", "no-such-key", "1"],
        ["--store=", "status"], ["--user", "", "status"],
    ])
    func badValuesExit65(arguments: [String]) {
        let error = failure(arguments)
        #expect(error != nil, "\(arguments) parsed")
        #expect(error?.exitCode == .badValue, "\(arguments): \(String(describing: error))")
    }

    @Test func unknownOptionMessageNamesIt() {
        let error = failure(["status", "--frobnicate"])
        #expect(error?.message == "unknown option '--frobnicate' for status", "\(String(describing: error))")
        #expect(failure(["--frobnicate", "config", "set", "k", "v"])?.message == "unknown option '--frobnicate' for config set")
        #expect(failure(["--frobnicate"])?.message == "unknown option '--frobnicate'")
        let command = failure(["frobnicate"])
        #expect(command?.message.contains("frobnicate") == true)
        // Control characters are escaped, so the message stays one line.
        let control = failure(["--bad\noption", "status"])
        #expect(control?.message.contains("\n") == false, "\(String(describing: control))")
    }

    @Test func optionsThatDoNotApplyAreNamedByTheirLongNamesInOrder() {
        // The first one given that does not apply is named, by its long name.
        #expect(failure(["log", "--session", "x", "--lock", "-S"])?.message == "option '--session' does not apply to 'log'")
        #expect(failure(["event", "did-become-active", "--reason=r", "--policy", "biometrics"])?.message
            == "option '--reason' does not apply to 'event'")
        #expect(failure(["config", "get", "--reason", "r"])?.message == "option '--reason' does not apply to 'config get'")
        #expect(failure(["--store", "", "status"])?.message == "option '--store' needs a non-empty value")
        #expect(failure(["status", "--user="])?.message == "option '--user' needs a non-empty value")
    }

    @Test func errorsNameTheWordTheyRejectAndCarryTheUsageLine() {
        let extra = failure(["status", "extra"])
        #expect(extra?.message == "status: unexpected argument 'extra'")
        #expect(extra?.usage == "usage: touchgate [options] status")
        #expect(failure(["event"])?.message == "event: missing argument EVENT")
        #expect(failure(["config", "set", "grace-seconds"])?.message == "config set: missing argument VALUE")
        #expect(failure(["config", "get", "a", "b"])?.message == "config get: unexpected argument 'b'")
        #expect(failure(["config"])?.message == "config: missing subcommand (get or set)")
        #expect(failure(["config", "unset", "x"])?.message == "config: unknown subcommand 'unset' (expected get or set)")
        #expect(failure(["auth", "--policy", "face-id"])?.message
            == "auth: unknown policy 'face-id': expected biometrics or device-owner")
        #expect(failure(["help", "frobnicate"])?.message == "help: unknown command 'frobnicate' (see touchgate --help)")
        #expect(failure(["enroll", "--reason"])?.message == "option '--reason' needs a value")
        #expect(failure(["enroll", "--reason"])?.usage == "usage: touchgate [options] enroll [--reason TEXT] [--no-interaction] [--session ID]")
        // A bad value is not a usage error: no usage line.
        #expect(failure(["log", "--limit", "0"])?.usage == nil)
    }

    @Test func enrollAndTheOtherEvaluatingCommandsTakeTheirOptions() throws {
        var options = EvaluationOptions()
        options.reason = "r"
        options.noInteraction = true
        options.session = "s"
        let words = ["--reason", "r", "--no-interaction", "--session", "s"]
        #expect(try parse(["enroll"] + words).command == .enroll(options))
        #expect(try parse(["unenroll"] + words).command == .unenroll(options))
        #expect(try parse(["reset"] + words).command == .reset(options))
        #expect(try parse(["config", "set", "grace-seconds", "5"] + words).command
            == .configSet(key: .graceSeconds, value: "5", options))
    }

    @Test func completionsAndTheManPage() throws {
        #expect(try parse(["completions", "bash"]).command == .completions(shell: "bash"))
        #expect(try parse(["completions", "zsh"]).command == .completions(shell: "zsh"))
        #expect(failure(["completions", "fish"])?.exitCode == .badValue)
        #expect(failure(["completions"])?.message == "completions: missing argument SHELL")
        #expect(try parse(["help", "--man"]).command == .manPage)
        #expect(failure(["help", "--man", "auth"])?.exitCode == .usage)
        #expect(failure(["status", "--man"])?.message == "option '--man' does not apply to 'status'")
    }

    // MARK: - The binary

    @Test func usageErrorsOfTheBinaryNameTheRejectedWord() throws {
        let world = try TestEnvironment()
        let extra = try world.run(["status", "extra"])
        #expect(extra.status == 64, "\(extra)")
        #expect(extra.stderr == "touchgate: status: unexpected argument 'extra'\nusage: touchgate [options] status\n", "\(extra)")
        #expect(extra.stdout.isEmpty)
        let option = try world.run(["enroll", "--foo"])
        #expect(option.status == 64, "\(option)")
        #expect(option.stderr == "touchgate: unknown option '--foo' for enroll\n"
            + "usage: touchgate [options] enroll [--reason TEXT] [--no-interaction] [--session ID]\n", "\(option)")
    }

    @Test func helpGoesToStandardOutputAndExitsZero() throws {
        let world = try TestEnvironment()
        for arguments in [["--help"], ["-h"], ["help"]] {
            let result = try world.run(arguments)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains("usage: touchgate"), "\(result)")
            #expect(result.stdout.contains("exit codes"), "\(result)")
            #expect(result.stderr.isEmpty, "\(result)")
        }
        let topic = try world.run(["auth", "--help"])
        #expect(topic.status == 0)
        #expect(topic.stdout.contains("--policy"), "\(topic)")
        let version = try world.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("touchgate "), "\(version)")
        // Help needs no store: none was created.
        #expect(!FileManager.default.fileExists(atPath: world.storePath))
    }

    @Test(arguments: [["--frobnicate"], ["--frobnicate", "status"], ["status", "--frobnicate"], ["frobnicate"],
                      ["auth", "--policy", "face-id"], []])
    func usageErrorsExit64WithOneLineAndTheUsageLineOnStandardError(arguments: [String]) throws {
        let world = try TestEnvironment()
        let result = try world.run(arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderrLines.count == 2, "\(result)")
        #expect(result.stderrLines.first?.hasPrefix("touchgate: ") == true, "\(result)")
        #expect(result.stderrLines.last?.hasPrefix("usage: touchgate [options] ") == true, "\(result)")
        #expect(result.stderr.hasSuffix("\n"))
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(world.calls("touchgate") == 0)
        #expect(!FileManager.default.fileExists(atPath: world.storePath), "a usage error opens no store")
    }

    @Test func badLimitExits65FromTheBinary() throws {
        let world = try TestEnvironment()
        let result = try world.run(["log", "--limit", "many"])
        #expect(result.status == 65, "\(result)")
        #expect(result.stderrLines.count == 1, "\(result)")
    }
}
