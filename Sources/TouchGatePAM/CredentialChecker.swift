import TouchGateCore
import TouchGateTerminal


extension CredentialCheckResult {
    /// The stack's `outcome` with what `conversation` recorded: how both checkers, in process
    /// (``PAMCredentialChecker``) and in the worker (``WorkerCredentialChecker``), report a check.
    init(_ outcome: PAMOutcome, conversation: Conversation) {
        self.init(
            outcome: outcome, submittedAnswer: conversation.submittedAnswer, fallbackChosen: conversation.fallbackChosen,
            interruption: conversation.interruption, endOfInput: conversation.endOfInput,
            notInteractive: conversation.notInteractive, invalidAnswer: conversation.invalidAnswer)
    }
}

/// Checks one credential for one user against one named stack.
///
/// The implementation users run is ``PAMCredentialChecker``; the protocol exists so the
/// authenticator's logic does not depend on how the stack is reached.
public protocol CredentialChecker: Sendable {
    /// Whether `service` is configured at all (a missing stack must not fall back to PAM's `other`).
    func serviceExists(_ service: String) -> Bool
    /// A sentence saying why `service` (the `role` factor's stack, "passcode" or "biometric") is
    /// not there, naming the file or directory that is missing.
    func missingServiceDescription(_ service: String, role: String) -> String
    /// Runs one authentication attempt, asking `prompts` whatever the stack asks.
    func check(
        service: String, user: String, prompts: PromptSource, interrupter: Interrupter, emptyAnswerIsFallback: Bool
    ) -> CredentialCheckResult
    /// One attempt of a stack that may wait for a sensor without asking: a line typed meanwhile
    /// (`-S`) is the fallback when empty and, with `typedLineIsPasscode`, the passcode when not
    /// (left for the passcode prompt). Checkers that cannot watch input run ``check(service:user:prompts:interrupter:emptyAnswerIsFallback:)``.
    func check(
        service: String, user: String, prompts: PromptSource, interrupter: Interrupter, emptyAnswerIsFallback: Bool,
        typedLineIsPasscode: Bool
    ) -> CredentialCheckResult
}

extension CredentialChecker {
    public func check(
        service: String, user: String, prompts: PromptSource, interrupter: Interrupter, emptyAnswerIsFallback: Bool,
        typedLineIsPasscode: Bool
    ) -> CredentialCheckResult {
        check(service: service, user: user, prompts: prompts, interrupter: interrupter,
              emptyAnswerIsFallback: emptyAnswerIsFallback)
    }

    public func missingServiceDescription(_ service: String, role: String) -> String {
        "The \(role) service \(service) is not configured."
    }
}
