import TouchGateCore

/// What a generated snippet (`tmux-conf`, `shell-init`) carries from where it was generated: the
/// `touchgate` command line (the binary and the global options) with where each value came
/// from, and what became of the store whose id it carries.
///
/// The snippet is sourced long after, in other environments, so its first lines say all of this
/// and how to generate it again: a user who later sets `TOUCHGATE_STORE` or moves the binary
/// learns from the file itself that it still runs the old ones.
package struct SnippetBake: Sendable {
    /// The binary the snippet's commands run (this one) and `--store` (from the root),
    /// `--store-id`, `--user`, `--pam-confdir`.
    package var line: TouchGateCommandLine
    /// Where each option's value came from, by option (`--store`, `TOUCHGATE_STORE`, ...).
    package var sources: [String: String] = [:]
    /// This generation made the store (it did not exist): a new store, with the lock off.
    package var madeStore = false
    /// Why the store could not be opened to read its id; the snippet then carries none.
    package var storeProblem: String?

    package init(line: TouchGateCommandLine) {
        self.line = line
    }

    /// Sets `option`'s value (through `keyPath`) from `given` (the command line), else from the
    /// environment's `variable`, noting which.
    package mutating func take(_ keyPath: WritableKeyPath<TouchGateCommandLine, String?>, _ option: String, given: String?,
                              variable: String, from environment: (String) -> String?) {
        if let given {
            line[keyPath: keyPath] = given
            sources[option] = option
        } else if let value = environment(variable) {
            line[keyPath: keyPath] = value
            sources[option] = variable
        }
    }

    /// The command line the snippet's commands start with.
    package var command: String { line.shellCommand([]) }

    /// Comment lines for the top of a snippet made by `touchgate ARGUMENTS...`: what it carries
    /// and from where, what an option it does not carry means, and the command that generates it
    /// again with the same values. Every line goes through ``TerminalText``, so no line break or
    /// control character in a value can end the comment (the snippet is sourced or eval'd).
    package func comment(generatedBy arguments: [String]) -> String {
        var lines = ["# Baked in from where this was generated:",
                     "#   binary \(line.executable)   (the touchgate that generated it)"]
        for (option, value) in line.options {
            var text = "#   \(option) \(value)   (from \(sources[option] ?? option))"
            if option == "--store-id", madeStore { text += "; that store was made now, with the lock off" }
            lines.append(text)
        }
        if let storeProblem, line.storeID == nil {
            lines.append("#   no --store-id: the store could not be read (\(storeProblem)); "
                + "a store made later in its place is used, with the lock off")
        }
        let absent = [("--store", "TOUCHGATE_STORE where it runs, else the default store"),
                      ("--user", "TOUCHGATE_USER where it runs, else the user running it"),
                      ("--pam-confdir", "TOUCHGATE_PAM_CONFDIR where it runs, else the system's PAM configuration")]
        for (option, meaning) in absent where !line.options.contains(where: { $0.option == option }) {
            lines.append("#   no \(option): \(meaning)")
        }
        // The same values as options; the store's id is read anew from the store they name.
        var again = line
        again.storeID = nil
        lines += ["# Changing the variables, the options or the binary later does not change this snippet:",
                  "# generate it again. With the same values (standard output is the snippet):",
                  "#   " + again.shellCommand(arguments)]
        return lines.map { TerminalText.sanitized($0) }.joined(separator: "\n")
    }
}
