import TouchGate

/// What an evaluating command was asked to do.
package struct EvaluationOptions: Equatable, Sendable {
    package var policy: AuthPolicy = .deviceOwner
    package var reason: String?
    package var noInteraction = false
    /// `--session ID`.
    package var session: String?

    package init() {}
}
