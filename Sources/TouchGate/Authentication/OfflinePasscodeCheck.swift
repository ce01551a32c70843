/// The passcode check the gate falls back to when the store cannot be read.
///
/// Without the store nothing can be counted durably, so throttling is kept in memory with the
/// default schedule, and only a passcode success (a secret given and accepted) opens the gate.
public struct OfflinePasscodeCheck {
    let checker: any CredentialChecker
    let user: String
    let policy = LockoutPolicy(configuration: Configuration())
    public private(set) var failures = 0
    private var lastFailure: Double?

    public init(checker: any CredentialChecker, user: String) {
        self.checker = checker
        self.user = user
    }

    /// One passcode attempt; returns on success and throws an ``AuthError`` otherwise.
    public mutating func attempt(prompts: any PromptSource, interrupter: Interrupter, now: Double) throws(AuthError) {
        if let wait = policy.passcodeRetryAfter(failures: failures, lastFailure: lastFailure, now: now) {
            throw AuthError(.authenticationFailed, retryAfterSeconds: wait)
        }
        let service = Configuration().passcodeService
        guard checker.serviceExists(service) else {
            throw AuthError(.passcodeNotSet, detail: checker.missingServiceDescription(service, role: "passcode"))
        }
        let result = checker.check(service: service, user: user, prompts: prompts, interrupter: interrupter,
                                   emptyAnswerIsFallback: false)
        // A secret that reached the stack counts, however the try ended (as in the store's settlement).
        let stop: AuthError.Code? = if let interruption = result.interruption ?? interrupter.pending {
            interruption.code
        } else if result.endOfInput {
            .userCancel
        } else if result.notInteractive {
            .notInteractive
        } else {
            nil
        }
        if let stop {
            if result.submittedAnswer { countFailure(now) }
            throw AuthError(stop)
        }
        if result.outcome == .success, result.submittedAnswer, !result.stoppedEarly { return }
        if result.outcome == .success { throw AuthError(.passcodeNotSet) }
        countFailure(now)
        throw AuthError(result.outcome.errorCode(for: .passcode) ?? .authenticationFailed)
    }

    private mutating func countFailure(_ now: Double) {
        failures += 1
        lastFailure = now
    }
}
