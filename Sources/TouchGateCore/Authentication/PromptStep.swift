/// One try of a factor, as a prompt source is told it before the stack asks.
public struct PromptStep: Sendable, Equatable {
    public var factor: Factor
    /// 1 for the factor's first try in this evaluation.
    public var attempt: Int
    /// How many tries of the factor this evaluation allows (`biometric-tries-per-evaluation`,
    /// `passcode-tries-per-evaluation`).
    public var tries: Int
    /// The evaluation's reason (`--reason`, "unlock session …").
    public var reason: String
    /// Whose credential is asked for.
    public var user: String
    /// What an empty answer (Enter alone) does, by its label: the fallback to the passcode; `nil`
    /// when it does nothing of its own (the passcode's prompt) or the label is hidden.
    public var enterTitle: String?
    /// What Ctrl-C does, by its label (`AuthContext.cancelTitle`); `nil` when it is not offered
    /// (at the gate it only clears the line).
    public var cancelTitle: String?
    /// At the passcode's first try when a rule (``PasscodeRequirement``) kept the finger from
    /// being tried: why, for the prompt to say it as iOS does.
    public var passcodeRequired: PasscodeRequirement.Reason?

    public init(factor: Factor, attempt: Int, tries: Int, reason: String, user: String, enterTitle: String?, cancelTitle: String?) {
        self.factor = factor
        self.attempt = attempt
        self.tries = tries
        self.reason = reason
        self.user = user
        self.enterTitle = enterTitle
        self.cancelTitle = cancelTitle
    }
}
