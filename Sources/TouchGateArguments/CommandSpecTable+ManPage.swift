extension CommandSpecTable {
    // The sections of the program's man page that the table can say, in roff, each a `.SH` with
    // its text: the program puts them in order among its hand-written ones.

    /// NAME: the program and its abstract.
    package var manPageName: String {
        ".SH NAME\n" + Roff.text(program) + " \\- " + Roff.text(abstract) + "\n"
    }

    /// SYNOPSIS: one line per command.
    package var manPageSynopsis: String {
        ".SH SYNOPSIS\n" + commands.map { "\\fB\(Roff.text(program))\\fR [\\fIoptions\\fR] " + Roff.synopsis($0) }
            .joined(separator: "\n.br\n") + "\n"
    }

    /// COMMANDS: each command's synopsis and details, its options and JSON keys, its exit statuses.
    package var manPageCommands: String {
        var section = ".SH COMMANDS\n"
        for command in commands {
            section += ".TP\n" + Roff.synopsis(command) + "\n" + Roff.text(command.details) + "\n"
            if !command.options.isEmpty || !command.jsonKeys.isEmpty {
                section += ".RS\n"
                for option in command.options {
                    section += ".TP\n" + Roff.label(option) + "\n" + Roff.text(option.help) + "\n"
                }
                if !command.jsonKeys.isEmpty {
                    section += ".PP\nJSON keys (\\fB\\-\\-json\\fR):\n" + Roff.text(command.jsonKeys.joined(separator: ", ")) + ".\n"
                }
                section += ".RE\n"
            }
            section += ".IP\nExit status: " + Roff.text(exitStatuses(of: command).map(\.code).joined(separator: ", ")) + ".\n"
        }
        return section
    }

    /// OPTIONS: the global options.
    package var manPageOptions: String {
        var section = ".SH OPTIONS\n"
        section += Roff.text("Options may stand before or after the command, as --name value or --name=value; -- ends the options.")
            + "\n"
        for option in globalOptions {
            section += ".TP\n" + Roff.label(option) + "\n" + Roff.text(option.help) + "\n"
        }
        return section
    }

    /// EXIT STATUS: the table's statuses and their meanings (the program may add notes after it).
    package var manPageExitStatus: String {
        var section = ".SH EXIT STATUS\n"
        for status in exitStatuses {
            section += ".TP\n.B " + Roff.text(status.code) + "\n" + Roff.text(status.meaning) + "\n"
        }
        return section
    }

    /// JSON KEYS AND EXIT CODES: what a test may rely on, per command, from the same table as
    /// COMMANDS: the keys each prints with --json and its exit statuses, after the program's
    /// `introduction` (what its errors print, what a change of the list means).
    package func manPageJSONContract(introduction: String) -> String {
        var section = ".SH JSON KEYS AND EXIT CODES\n" + Roff.text(introduction) + "\n"
        for command in commands {
            let keys = command.jsonKeyNames.isEmpty ? "no JSON" : command.jsonKeyNames.map { name in
                command.conditionalJSONKeyNames.contains(name) ? name + " (when ...)" : name
            }.joined(separator: ", ")
            section += ".TP\n.B " + Roff.text(command.name) + "\n" + Roff.text(keys + "; exit "
                + exitStatuses(of: command).map(\.code).joined(separator: ", ")) + "\n"
        }
        return section
    }
}
