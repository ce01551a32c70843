/// Text for a man page in roff: escaped so that no character of it is read as a request or an escape.
package enum Roff {
    /// `text` as roff text on one line: backslashes and hyphens escaped, never a request.
    package static func text(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\\": result += "\\e"
            case "-": result += "\\-"
            default: result.append(character)
            }
        }
        // Lines of at most 80 bytes, none of them starting as a request would.
        return TextLayout.wrapped(result, indent: "", width: 79).split(separator: "\n").map { line in
            line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line)
        }.joined(separator: "\n")
    }

    /// `\fBenroll\fR [\fB\-\-reason\fR \fITEXT\fR] …`.
    package static func synopsis(_ command: CommandSpec) -> String {
        var words = ["\\fB" + text(command.name) + "\\fR"]
        for argument in command.arguments {
            let name = "\\fI" + text(argument.name) + "\\fR"
            words.append(argument.optional ? "[" + name + "]" : name)
        }
        for option in command.options {
            words.append("[\\fB" + text(option.long) + "\\fR" + (option.valueName.map { " \\fI" + text($0) + "\\fR" } ?? "") + "]")
        }
        return words.joined(separator: " ")
    }

    /// `\fB\-S\fR, \fB\-\-stdin\fR` or `\fB\-\-store\fR \fIPATH\fR`.
    package static func label(_ option: OptionSpec) -> String {
        option.spellings.map { "\\fB" + text($0) + "\\fR" }.joined(separator: ", ")
            + (option.valueName.map { " \\fI" + text($0) + "\\fR" } ?? "")
    }
}
