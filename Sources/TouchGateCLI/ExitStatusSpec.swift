/// One exit status (or range of them) and what it means, as the man page and help list them.
public struct ExitStatusSpec: Sendable {
    /// Which statuses a command can end with, besides 0, 64 and 70 (which every command can).
    public enum Kind: Sendable, CaseIterable {
        case success, outcome, usage, badValue, watcherMissing, internalError, store, watcherRunning
    }

    public let kind: Kind
    /// `64`, or `1-11` for the outcomes.
    public let code: String
    /// A few words, for `help COMMAND`: "usage error".
    public let brief: String
    public let meaning: String

    init(_ kind: Kind, _ code: String, _ brief: String, _ meaning: String) {
        self.kind = kind
        self.code = code
        self.brief = brief
        self.meaning = meaning
    }
}
