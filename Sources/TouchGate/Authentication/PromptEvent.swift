/// What an evaluation tells its ``PromptSource`` besides the stack's own prompts, as values:
/// which factor and which try, what Enter and Ctrl-C do, how a try ended. The source words it
/// (the CLI's sentences are its own), or a test reads it as it is.
public enum PromptEvent: Sendable, Equatable {
    /// A try begins, before its stack's first prompt.
    case tryStarted(PromptStep)
    /// The try was checked and was wrong (counted); what is left after it.
    case tryFailed(Factor, AttemptsLeft)
    /// The factor cannot be used now (a reader that timed out, failed or is gone): device-owner
    /// goes on to the passcode.
    case factorUnavailable(Factor, AuthError.Code)
    /// An answer was refused before it reached the stack (too long, a NUL byte); it counts as a
    /// wrong try.
    case answerRefused(String)
}

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

/// What is left of a factor after a wrong try, or as `status` reads it from the store.
public struct AttemptsLeft: Sendable, Equatable {
    /// Tries of the factor this evaluation still allows; `nil` outside an evaluation.
    public var inEvaluation: Int?
    /// Wrong tries that can still be made before the factor stops: the biometric lockout
    /// (`max-biometric-failures`), or the passcode's next delay (`passcode-delays`); `nil` when
    /// no delay will ever come.
    public var beforeStop: Int?
    /// The passcode's delay that comes after those tries, in seconds (`nil` for the biometric factor).
    public var delaySeconds: Int?

    public init(inEvaluation: Int?, beforeStop: Int?, delaySeconds: Int? = nil) {
        self.inEvaluation = inEvaluation
        self.beforeStop = beforeStop
        self.delaySeconds = delaySeconds
    }
}
