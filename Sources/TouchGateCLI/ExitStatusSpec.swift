import TouchGate

/// One exit status (or range of them) and what it means, as the man page and help list them.
package struct ExitStatusSpec: Sendable {
    /// Which statuses a command can end with, besides 0, 64 and 70 (which every command can).
    package enum Kind: Sendable, CaseIterable {
        case success, outcome, usage, badValue, watcherMissing, internalError, store, watcherRunning
    }

    package let kind: Kind
    /// `64`, or `1-11` for the outcomes: from the ``ExitCode`` values, so the table cannot
    /// name another number than the one the process exits with.
    package let code: String
    /// A few words, for `help COMMAND`: "usage error".
    package let brief: String
    package let meaning: String

    /// `status`, or `status` through `last` for a range of them.
    init(_ kind: Kind, _ status: ExitCode, through last: ExitCode? = nil, _ brief: String, _ meaning: String) {
        self.kind = kind
        code = "\(status.rawValue)" + (last.map { "-\($0.rawValue)" } ?? "")
        self.brief = brief
        self.meaning = meaning
    }
}
