import TouchGate

/// What an evaluating command was asked to do.
public struct EvaluationOptions: Equatable, Sendable {
    public var policy: AuthPolicy = .deviceOwner
    public var reason: String?
    public var noInteraction = false
    /// `--session ID`.
    public var session: String?

    public init() {}
}
