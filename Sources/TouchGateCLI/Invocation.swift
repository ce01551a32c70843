import TouchGate

/// A parsed command line: the global options and one command with its own options.
package struct Invocation: Equatable, Sendable {
    /// `--store PATH`; the environment and the default are applied when the command runs.
    package var storePath: String?
    /// `--user NAME`.
    package var user: String?
    /// `--store-id ID`: the store must exist and have this id (the generated snippets pass it).
    package var storeID: String?
    /// `--system`: the system ledger (``PAMHostRequest/systemStorePath``) instead of a user store.
    package var system = false
    /// `--json`: one JSON object on standard output.
    package var json = false
    /// `-S` / `--stdin`: each answer is one line of standard input.
    package var answersFromStandardInput = false
    /// `--pam-confdir DIR`: read PAM service files from DIR through `pam_start_confdir`.
    package var pamConfigurationDirectory: String?
    package var command: Command

    package init(command: Command) {
        self.command = command
    }
}
