import TouchGate

/// A parsed command line: the global options and one command with its own options.
public struct Invocation: Equatable, Sendable {
    /// `--store PATH`; the environment and the default are applied when the command runs.
    public var storePath: String?
    /// `--user NAME`.
    public var user: String?
    /// `--store-id ID`: the store must exist and have this id (the generated snippets pass it).
    public var storeID: String?
    /// `--system`: the system ledger (``PAMHostRequest/systemStorePath``) instead of a user store.
    public var system = false
    /// `--json`: one JSON object on standard output.
    public var json = false
    /// `-S` / `--stdin`: each answer is one line of standard input.
    public var answersFromStandardInput = false
    /// `--pam-confdir DIR`: read PAM service files from DIR through `pam_start_confdir`.
    public var pamConfigurationDirectory: String?
    public var command: Command

    public init(command: Command) {
        self.command = command
    }
}
