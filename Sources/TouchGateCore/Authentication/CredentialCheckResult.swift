/// What one credential check reported.
public struct CredentialCheckResult: Sendable, Equatable {
    /// The stack's verdict, read from its PAM status (``PAMOutcome/notStarted`` when `pam_start` failed).
    public var outcome: PAMOutcome
    /// A non-empty answer reached the stack.
    public var submittedAnswer: Bool
    public var fallbackChosen = false
    public var interruption: Interruption?
    public var endOfInput = false
    public var notInteractive = false
    public var invalidAnswer: String?

    package init(
        outcome: PAMOutcome, submittedAnswer: Bool, fallbackChosen: Bool = false, interruption: Interruption? = nil,
        endOfInput: Bool = false, notInteractive: Bool = false, invalidAnswer: String? = nil
    ) {
        self.outcome = outcome
        self.submittedAnswer = submittedAnswer
        self.fallbackChosen = fallbackChosen
        self.interruption = interruption
        self.endOfInput = endOfInput
        self.notInteractive = notInteractive
        self.invalidAnswer = invalidAnswer
    }

    /// False when the stack could not even be started.
    public var started: Bool { outcome != .notStarted }

    /// The conversation stopped the transaction before the stack decided.
    package var stoppedEarly: Bool {
        fallbackChosen || endOfInput || notInteractive || invalidAnswer != nil || interruption != nil
    }
}
