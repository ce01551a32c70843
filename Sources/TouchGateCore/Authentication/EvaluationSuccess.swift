/// Proof that one evaluation succeeded: what a session's unlock takes.
///
/// Only the library makes one (its initializer is internal), when an evaluation of its own ends
/// in success (``AuthContext/evaluateSynchronously(_:reason:)``, a reuse of a recent success
/// included). So "a session unlocks only after a successful evaluation" is a property of the
/// types: ``SessionLifecycle/unlock(_:)`` and ``Store/unlockSession(_:user:after:)`` cannot be
/// called without one, and no command, demo or test can unlock a session another way.
public struct EvaluationSuccess: Sendable, Equatable {
    /// The user whose credential was checked.
    public let user: String
    /// What the evaluation was: the policy, or the command it guarded.
    public let purpose: AuditPolicy

    package init(user: String, purpose: AuditPolicy) {
        self.user = user
        self.purpose = purpose
    }
}
