/// A touchgate command line that touchgate writes for later: the binary, the global options in
/// one order (`--store`, `--store-id`, `--user`, `--pam-confdir`, `--json`), then a command's
/// words. The owner's gate, the generated snippets, the systemd unit and the watcher's command
/// line are each one of these, so an option is spelt and ordered in one place.
public struct TouchGateCommandLine: Equatable, Sendable {
    /// The program (`/usr/bin/touchgate`); empty for a command line without it (the watcher's).
    public var executable: String
    public var storePath: String?
    public var storeID: String?
    public var user: String?
    public var pamConfigurationDirectory: String?
    public var json = false

    public init(executable: String, storePath: String? = nil, storeID: String? = nil, user: String? = nil,
                pamConfigurationDirectory: String? = nil, json: Bool = false) {
        self.executable = executable
        self.storePath = storePath
        self.storeID = storeID
        self.user = user
        self.pamConfigurationDirectory = pamConfigurationDirectory
        self.json = json
    }

    /// The global options as (option, value) pairs, in their order (`--json` has no value).
    public var options: [(option: String, value: String)] {
        [("--store", storePath), ("--store-id", storeID), ("--user", user), ("--pam-confdir", pamConfigurationDirectory)]
            .compactMap { option, value in value.map { (option, $0) } }
    }

    /// The global options' words, then `command`'s (without the program).
    public func arguments(_ command: [String]) -> [String] {
        options.flatMap { [$0.option, $0.value] } + (json ? ["--json"] : []) + command
    }

    /// The whole argument vector: the program, the global options, `command`.
    public func words(_ command: [String]) -> [String] {
        [executable] + arguments(command)
    }

    /// The command line as a shell reads it, each word quoted (``shellQuoted(_:)``).
    public func shellCommand(_ command: [String]) -> String {
        words(command).map(shellQuoted).joined(separator: " ")
    }

    /// The command line as systemd's `ExecStart=` reads it (``systemdQuoted(_:)``).
    public func systemdCommand(_ command: [String]) -> String {
        words(command).map(systemdQuoted).joined(separator: " ")
    }
}

/// `word` as systemd's `ExecStart=` reads it: double-quoted when it holds a space or a quote,
/// with `%` (a specifier) and `$` (a variable) doubled.
public func systemdQuoted(_ word: String) -> String {
    var text = word.replacingEvery("%", with: "%%").replacingEvery("$", with: "$$")
    if text.contains(where: { $0 == " " || $0 == "\"" || $0 == "'" || $0 == "\\" || $0 == "\t" }) || text.isEmpty {
        text = "\"" + text.replacingEvery("\\", with: "\\\\").replacingEvery("\"", with: "\\\"") + "\""
    }
    return text
}

/// `text` quoted for a POSIX shell: single quotes, with embedded ones spliced in.
public func shellQuoted(_ text: String) -> String {
    "'" + text.replacingEvery("'", with: "'\\''") + "'"
}
