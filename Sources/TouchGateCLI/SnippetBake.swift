import TouchGate

/// What a generated snippet (`tmux-conf`, `shell-init`) carries from where it was generated: the
/// `touchgate` binary, the global options with where each value came from, and what became of
/// the store whose id it carries.
///
/// The snippet is sourced long after, in other environments, so its first lines say all of this
/// and how to generate it again: a user who later sets `TOUCHGATE_STORE` or moves the binary
/// learns from the file itself that it still runs the old ones.
struct SnippetBake {
    typealias Option = (option: String, value: String, source: String)

    /// The binary the snippet's commands run (this one).
    var executable: String
    /// `--store` (from the root), `--store-id`, `--user`, `--pam-confdir`, each with its source.
    var options: [Option] = []
    /// This generation made the store (it did not exist): a new store, with the lock off.
    var madeStore = false
    /// Why the store could not be opened to read its id; the snippet then carries none.
    var storeProblem: String?

    /// The command line the snippet's commands start with.
    var command: String {
        ([executable] + options.flatMap { [$0.option, $0.value] }).map(shellQuoted).joined(separator: " ")
    }

    /// Comment lines for the top of a snippet made by `touchgate ARGUMENTS...`: what it carries
    /// and from where, what an option it does not carry means, and the command that generates it
    /// again with the same values. Every line goes through ``TerminalText``, so no line break or
    /// control character in a value can end the comment (the snippet is sourced or eval'd).
    func comment(generatedBy arguments: [String]) -> String {
        var lines = ["# Baked in from where this was generated:",
                     "#   binary \(executable)   (the touchgate that generated it)"]
        for (option, value, source) in options {
            var line = "#   \(option) \(value)   (from \(source))"
            if option == "--store-id", madeStore { line += "; that store was made now, with the lock off" }
            lines.append(line)
        }
        if let storeProblem, !options.contains(where: { $0.option == "--store-id" }) {
            lines.append("#   no --store-id: the store could not be read (\(storeProblem)); "
                + "a store made later in its place is used, with the lock off")
        }
        let absent = [("--store", "TOUCHGATE_STORE where it runs, else the default store"),
                      ("--user", "TOUCHGATE_USER where it runs, else the user running it"),
                      ("--pam-confdir", "TOUCHGATE_PAM_CONFDIR where it runs, else the system's PAM configuration")]
        for (option, meaning) in absent where !options.contains(where: { $0.option == option }) {
            lines.append("#   no \(option): \(meaning)")
        }
        // The same values as options; the store's id is read anew from the store they name.
        let again = [executable] + options.filter { $0.option != "--store-id" }.flatMap { [$0.option, $0.value] } + arguments
        lines += ["# Changing the variables, the options or the binary later does not change this snippet:",
                  "# generate it again. With the same values (standard output is the snippet):",
                  "#   " + again.map(shellQuoted).joined(separator: " ")]
        return lines.map { TerminalText.sanitized($0) }.joined(separator: "\n")
    }
}
