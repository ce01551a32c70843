import TouchGateSystem

/// How a claim on a session's prompt ended (``Store/claimPrompt(session:user:pid:kind:takingOver:)``).
public enum PromptClaim: Equatable, Sendable {
    /// The prompt is the claimant's; no one else held it.
    case claimed
    /// The prompt is the claimant's, taken from this live process.
    case tookOver(ProcessIdentity)
    /// This live process holds it.
    case heldBy(ProcessIdentity)
}
