/// One positional argument of a command: its name in the synopsis, whether it may be left out,
/// and what completes it.
public struct ArgumentSpec: Sendable {
    public let name: String
    public let optional: Bool
    public let values: CompletionValues

    init(_ name: String, optional: Bool = false, values: CompletionValues = .none) {
        self.name = name
        self.optional = optional
        self.values = values
    }

    /// `KEY` or `[KEY]`.
    public var synopsis: String { optional ? "[\(name)]" : name }
}
