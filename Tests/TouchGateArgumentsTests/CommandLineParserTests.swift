import Testing
import TouchGateArguments
import TouchGateCore

/// The engine's parser on a small table of its own (``SampleTable``): what it accepts, and the
/// one-line error, naming the rejected word, with the usage line of the command.
@Suite struct CommandLineParserTests {
    private func parse(_ arguments: [String]) throws(UsageError) -> SampleTable.Command {
        try CommandLineParser.parse(arguments, against: SampleTable.table).command
    }

    /// The error `parse` throws for `arguments`, or `nil` when it parses.
    private func failure(_ arguments: [String]) -> UsageError? {
        do throws(UsageError) {
            _ = try parse(arguments)
            return nil
        } catch {
            return error
        }
    }

    @Test func anUnknownOptionIsOneLineNamingItWithTheCommandsUsage() throws {
        let error = try #require(failure(["greet", "red", "--frobnicate"]))
        #expect(error.message == "unknown option '--frobnicate' for greet")
        #expect(!error.message.contains("\n"))
        #expect(error.exitCode == .usage)
        #expect(error.usage == "usage: sample [options] greet NAME [--loud]")
        // Before any command: the general usage line.
        #expect(failure(["--frobnicate"])?.message == "unknown option '--frobnicate'")
        #expect(failure(["--frobnicate"])?.usage == "usage: sample [options] COMMAND [ARGUMENTS] (sample help lists the commands)")
    }

    @Test func optionsStandBeforeOrAfterTheCommandInEitherForm() throws {
        #expect(try parse(["--loud", "greet", "red"]) == .greet(name: "red", loud: true))
        #expect(try parse(["greet", "red", "--loud"]) == .greet(name: "red", loud: true))
        #expect(try parse(["greet", "red"]) == .greet(name: "red", loud: false))
        let (command, line) = try CommandLineParser.parse(["config", "set", "--file=/a=b", "k", "-v", "v"],
                                                          against: SampleTable.table)
        #expect(command == .configSet(key: "k", value: "v"))
        #expect(line.value(SampleTable.file) == "/a=b")
        #expect(line.has(SampleTable.verbose))
    }

    @Test func valuesAndFlagsAreChecked() {
        #expect(failure(["config", "set", "k", "v", "--file"])?.message == "option '--file' needs a value")
        #expect(failure(["greet", "red", "--loud=yes"])?.message == "option '--loud' takes no value")
        #expect(failure(["config", "get", "--loud"])?.message == "option '--loud' does not apply to 'config get'")
    }

    @Test func commandsSubcommandsAndArguments() {
        #expect(failure([])?.message == "missing command (see sample --help)")
        #expect(failure(["gret"])?.message == "unknown command 'gret'; did you mean 'greet'? (see sample --help)")
        #expect(failure(["zzzzzz"])?.message == "unknown command 'zzzzzz' (see sample --help)")
        #expect(failure(["config"])?.message == "config: missing subcommand (get or set)")
        #expect(failure(["config", "drop"])?.message == "config: unknown subcommand 'drop' (expected get or set)")
        #expect(failure(["config", "set", "k"])?.message == "config set: missing argument VALUE")
        #expect(failure(["greet", "a", "b"])?.message == "greet: unexpected argument 'b'")
        #expect(failure(["greet", "a", "b"])?.usage == "usage: sample [options] greet NAME [--loud]")
    }

    @Test func doubleDashEndsTheOptionsAndANegativeNumberIsAValue() throws {
        #expect(try parse(["config", "set", "k", "--", "--loud"]) == .configSet(key: "k", value: "--loud"))
        #expect(try parse(["config", "set", "k", "-1"]) == .configSet(key: "k", value: "-1"))
    }

    @Test func helpAndVersionAreTheTablesCommands() throws {
        #expect(try parse(["--version"]) == .version)
        #expect(try parse(["--help"]) == .help(topic: nil))
        #expect(try parse(["greet", "-h"]) == .help(topic: "greet"))
        // --version beside a command runs the command (a global option, not the version).
        #expect(try parse(["greet", "red", "--version"]) == .greet(name: "red", loud: false))
    }

    /// A builder's usage error is named by the command and carries its usage line.
    @Test func aBuildersErrorIsNamedByTheCommand() {
        let error = failure(["greet", "nobody"])
        #expect(error?.message == "greet: nobody to greet")
        #expect(error?.usage == "usage: sample [options] greet NAME [--loud]")
    }

    /// The program's reading of the line (`finish`) fails as the builder does: named by the
    /// command, with its usage line; before a command (--help), as it is.
    @Test func aFinishErrorIsNamedByTheCommandLikeTheBuilders() {
        func failure(_ arguments: [String]) -> UsageError? {
            do throws(UsageError) {
                try CommandLineParser.parse(arguments, against: SampleTable.table) { _, line throws(UsageError) in
                    if line.has(SampleTable.verbose) { throw UsageError("too verbose") }
                }
                return nil
            } catch {
                return error
            }
        }
        #expect(failure(["greet", "red"]) == nil)
        #expect(failure(["greet", "red", "-v"])?.message == "greet: too verbose")
        #expect(failure(["greet", "red", "-v"])?.usage == "usage: sample [options] greet NAME [--loud]")
        #expect(failure(["-v", "--help"])?.message == "too verbose")
        #expect(failure(["-v", "--help"])?.usage == nil)
    }
}
