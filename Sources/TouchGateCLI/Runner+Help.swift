import Glibc
import TouchGate
import TouchGateArguments

extension Runner {
    /// `--help` / `help [COMMAND]`: on standard output, exit 0.
    func help(_ topic: String?) throws -> ExitCode {
        guard let topic else {
            writeLine(STDOUT_FILENO, CommandTable.table.overview)
            return .success
        }
        guard let text = CommandTable.table.help(for: topic) else {
            throw UsageError("unknown command '\(topic.escapedForMessage)' (see touchgate --help)")
        }
        writeLine(STDOUT_FILENO, text)
        return .success
    }

    /// `completions bash|zsh`: the completion script, on standard output.
    func completions(_ shell: String) -> ExitCode {
        writeAll(STDOUT_FILENO, shell == "zsh" ? CommandTable.zshCompletions : CommandTable.bashCompletions)
        return .success
    }

    /// `help --man`: the manual page in roff, on standard output.
    func manPage() -> ExitCode {
        writeAll(STDOUT_FILENO, CommandTable.manPage)
        return .success
    }
}
