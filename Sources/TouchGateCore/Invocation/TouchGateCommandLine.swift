/// A touchgate command line that touchgate writes for later: the binary, the global options in
/// one order (`--store`, `--store-id`, `--user`, `--pam-confdir`, `--json`), then a command's
/// words. The owner's gate, the generated snippets, the systemd unit and the watcher's command
/// line are each one of these, so an option is spelt and ordered in one place.
package struct TouchGateCommandLine: Equatable, Sendable {
    /// The program (`/usr/bin/touchgate`); empty for a command line without it (the watcher's).
    package var executable: String
    package var storePath: String?
    package var storeID: String?
    package var user: String?
    package var pamConfigurationDirectory: String?
    package var json = false

    package init(executable: String, storePath: String? = nil, storeID: String? = nil, user: String? = nil,
                pamConfigurationDirectory: String? = nil, json: Bool = false) {
        self.executable = executable
        self.storePath = storePath
        self.storeID = storeID
        self.user = user
        self.pamConfigurationDirectory = pamConfigurationDirectory
        self.json = json
    }

    /// The global options as (option, value) pairs, in their order (`--json` has no value).
    package var options: [(option: String, value: String)] {
        [("--store", storePath), ("--store-id", storeID), ("--user", user), ("--pam-confdir", pamConfigurationDirectory)]
            .compactMap { option, value in value.map { (option, $0) } }
    }

    /// The global options' words, then `command`'s (without the program).
    package func arguments(_ command: [String]) -> [String] {
        options.flatMap { [$0.option, $0.value] } + (json ? ["--json"] : []) + command
    }

    /// The whole argument vector: the program, the global options, `command`.
    package func words(_ command: [String]) -> [String] {
        [executable] + arguments(command)
    }

    /// The command line as a shell reads it, each word quoted (``shellQuoted(_:)``).
    package func shellCommand(_ command: [String]) -> String {
        words(command).map(shellQuoted).joined(separator: " ")
    }

    /// The command line as systemd's `ExecStart=` reads it (``systemdQuoted(_:)``).
    package func systemdCommand(_ command: [String]) -> String {
        words(command).map(systemdQuoted).joined(separator: " ")
    }
}

/// `word` as systemd's `ExecStart=` reads it: double-quoted when it holds a space or a quote,
/// with `%` (a specifier) and `$` (a variable) doubled.
package func systemdQuoted(_ word: String) -> String {
    var text = word.replacingEvery("%", with: "%%").replacingEvery("$", with: "$$")
    if text.contains(where: { $0 == " " || $0 == "\"" || $0 == "'" || $0 == "\\" || $0 == "\t" }) || text.isEmpty {
        text = "\"" + text.replacingEvery("\\", with: "\\\\").replacingEvery("\"", with: "\\\"") + "\""
    }
    return text
}

/// `text` quoted for a POSIX shell: single quotes, with embedded ones spliced in.
package func shellQuoted(_ text: String) -> String {
    "'" + text.replacingEvery("'", with: "'\\''") + "'"
}
