import TouchGateCore

/// One exit status (or range of them) and what it means, as the man page and help list them.
package struct ExitStatusSpec: Sendable {
    /// Which statuses a command can end with: a name the program's table gives each of its rows
    /// (touchgate's `.outcome`, `.store`), so a command lists the kinds, not the numbers.
    package struct Kind: Hashable, Sendable {
        package let name: String

        package init(_ name: String) {
            self.name = name
        }
    }

    package let kind: Kind
    /// `64`, or `1-11` for a range: from the ``ExitCode`` values, so the table cannot
    /// name another number than the one the process exits with.
    package let code: String
    /// A few words, for `help COMMAND`: "usage error".
    package let brief: String
    package let meaning: String

    /// `status`, or `status` through `last` for a range of them.
    package init(_ kind: Kind, _ status: ExitCode, through last: ExitCode? = nil, _ brief: String, _ meaning: String) {
        self.kind = kind
        code = "\(status.rawValue)" + (last.map { "-\($0.rawValue)" } ?? "")
        self.brief = brief
        self.meaning = meaning
    }
}
