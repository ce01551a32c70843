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
