/// The process exit status; each value up to ``watcherRunning`` is listed in `CommandTable.exitStatuses` (help and the
/// man page's EXIT STATUS), the shell's two for a command that could not run in `shell`'s details.
package struct ExitCode: RawRepresentable, Hashable, Sendable {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }

    package static let success = ExitCode(rawValue: 0)
    /// `notInteractive` (LAError -1004) does not fit in an exit status, so it has 11.
    package static let notInteractive = ExitCode(rawValue: 11)
    /// A command line that does not parse (`EX_USAGE`).
    package static let usage = ExitCode(rawValue: 64)
    /// A value that does not validate: a config value, an invalid lifecycle event (`EX_DATAERR`).
    package static let badValue = ExitCode(rawValue: 65)
    /// `touchgate watch`: the `touchgate-watch` executable is missing or cannot run (`EX_UNAVAILABLE`).
    package static let unavailable = ExitCode(rawValue: 69)
    /// A bug or an unexpected system failure (`EX_SOFTWARE`).
    package static let internalError = ExitCode(rawValue: 70)
    /// The store is unreadable, corrupt, insecure or of a newer schema (`EX_IOERR`).
    package static let store = ExitCode(rawValue: 74)
    /// `touchgate watch`: a watcher already runs for the same user and store (`EX_TEMPFAIL`).
    package static let watcherRunning = ExitCode(rawValue: 75)
    /// A shell's status for a command it found but could not execute (POSIX): what `touchgate
    /// shell` reads from a gate that could not be run.
    package static let cannotExecute = ExitCode(rawValue: 126)
    /// A shell's status for a command not found or whose exec failed (POSIX): `touchgate shell`'s
    /// when its gate or its program cannot start.
    package static let commandNotFound = ExitCode(rawValue: 127)

    /// ``internalError`` for a store's internal error (a bug), ``store`` for any other store failure.
    package init(_ error: StoreError) {
        self = error.reason == .internalError ? .internalError : .store
    }

    /// 1–10 for LAError -1…-10, 11 for notInteractive.
    package init(_ code: AuthError.Code) {
        self = code == .notInteractive ? .notInteractive : ExitCode(rawValue: Int32(clamping: -code.rawValue))
    }
}
