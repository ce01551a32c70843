import Testing
import TouchGateArguments

/// What the engine derives from a table (``SampleTable``): the lookups, the usage lines, each
/// command's exit statuses, the help, the man page's sections and the completion scripts.
@Suite struct CommandSpecTableTests {
    let table = SampleTable.table

    @Test func lookupsAndUsageLines() {
        #expect(table.commandWords == ["greet", "config", "help"])
        #expect(table.commands(matching: "config").map(\.name) == ["config get", "config set"])
        #expect(table.commands(matching: "config set").map(\.name) == ["config set"])
        #expect(table.option(spelled: "-v") == SampleTable.verbose)
        #expect(table.option(spelled: "--nope") == nil)
        #expect(table.usageLine(of: "config") == "usage: sample [options] config get [KEY] | config set KEY VALUE [--file PATH]")
        #expect(table.usageLine(of: "nope") == table.generalUsage)
        #expect(table.words(of: .commands) == ["greet", "config", "help"])
        #expect(table.words(of: SampleTable.colors) == ["red", "green"])
    }

    @Test func aCommandEndsWithItsOwnStatusesAndTheOnesEveryCommandCan() throws {
        let greet = try #require(table.command(named: "greet"))
        let configGet = try #require(table.command(named: "config get"))
        #expect(table.exitStatuses(of: greet).map(\.code) == ["0", "69", "64"])
        #expect(table.exitStatuses(of: configGet).map(\.code) == ["0", "64"])
    }

    @Test func typosAreSuggestedWithinAThirdOfTheWord() {
        #expect(table.nearestCommandWord(to: "gerte") == nil)
        #expect(table.nearestCommandWord(to: "greeet") == "greet")
        #expect(table.nearestCommandWord(to: "cnofig") == "config")
        #expect(table.nearestCommandWord(to: "") == nil)
    }

    @Test func helpNamesTheOptionsJSONKeysAndStatuses() throws {
        let help = try #require(table.help(for: "greet"))
        #expect(help.hasPrefix("usage: sample [options] greet NAME [--loud]\n\nGreets NAME, louder with --loud."))
        #expect(help.contains("\n  --loud  shout\n"))
        #expect(help.contains("JSON keys (--json): greeting"))
        #expect(help.contains("exit codes: 0 success; 69 failed; 64 usage error"))
        #expect(help.hasSuffix("global options (before or after the command):\n  -v, --verbose  say more\n  -h, --help     help\n"
            + "  --version      the version"))
        #expect(table.help(for: "nope") == nil)
        #expect(table.overview.hasPrefix("sample: a program to test the engine with.\n"))
    }

    @Test func theManPageSectionsComeFromTheTable() {
        #expect(table.manPageName == ".SH NAME\nsample \\- a program to test the engine with\n")
        #expect(table.manPageSynopsis.contains("\\fBsample\\fR [\\fIoptions\\fR] \\fBconfig set\\fR \\fIKEY\\fR \\fIVALUE\\fR "
            + "[\\fB\\-\\-file\\fR \\fIPATH\\fR]\n"))
        #expect(table.manPageCommands.contains(".IP\nExit status: 0, 69, 64.\n"))
        #expect(table.manPageOptions.contains(".TP\n\\fB\\-v\\fR, \\fB\\-\\-verbose\\fR\nsay more\n"))
        #expect(table.manPageExitStatus.hasPrefix(".SH EXIT STATUS\n.TP\n.B 0\nit worked\n"))
        #expect(table.manPageJSONContract(introduction: "Keys.").contains(".TP\n.B greet\ngreeting; exit 0, 69, 64\n"))
    }

    @Test func theCompletionsNameTheProgramItsCommandsAndTheirWords() {
        let bash = table.bashCompletions(header: "made by a test")
        #expect(bash.hasPrefix("# bash completion for sample(1)\n# made by a test\n\n_sample() {\n"))
        #expect(bash.hasSuffix("complete -F _sample sample\n"))
        #expect(bash.contains("compgen -W \"greet config help\""))
        #expect(bash.contains("\"greet:0\") COMPREPLY=($(compgen -W \"red green\" -- \"$cur\")) ;;"))
        #expect(bash.contains("\"help:0\") COMPREPLY=($(compgen -W \"greet config help\" -- \"$cur\")) ;;"))
        let zsh = table.zshCompletions(header: "made by a test")
        #expect(zsh.hasPrefix("#compdef sample\n# zsh completion for sample(1)\n# made by a test\n"))
        #expect(zsh.contains("subcommands=('get:show a setting' 'set:change a setting')"))
    }
}
