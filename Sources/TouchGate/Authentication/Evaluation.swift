/// One run of a policy: the biometric tries, then (under deviceOwner) the passcode tries.
///
/// Every try is admitted and counted by the store before PAM sees it, and settled after.
struct Evaluation {
    let context: AuthContext
    let policy: AuthPolicy
    /// What the audit log names the evaluation: the policy, or the command it guards.
    let purpose: String
    let reason: String
    let configuration: Configuration
    let prompts: any PromptSource
    let fallbackTitle: String?
    let cancelTitle: String?

    private var store: Store { context.store }

    /// How the biometric part ended when it did not end the whole evaluation.
    enum BiometricEnd {
        case success
        case fallback
        case unavailable(AuthError.Code)
        case exhausted
    }

    mutating func run(record: UserRecord) throws {
        let biometric = try biometricPhase(record: record)
        switch (policy, biometric) {
        case (_, .success):
            return
        case (.biometrics, .fallback):
            throw AuthError(.userFallback)
        case (.biometrics, .unavailable(let code)):
            throw AuthError(code, detail: code == .biometryNotAvailable ? context.remoteSessionDetail : nil)
        case (.biometrics, .exhausted):
            throw AuthError(.authenticationFailed)
        case (.deviceOwner, _):
            try passcodePhase()
        }
    }

    /// The biometric tries; throws when the evaluation must stop (cancel, no interaction).
    mutating func biometricPhase(record: UserRecord, enrolling: Bool = false) throws -> BiometricEnd {
        var record = record
        if enrolling { record.enrolled = true }
        if let unavailable = context.biometricAvailability(configuration: configuration, record: record),
           unavailable != .biometryLockout {
            // Under deviceOwner an unavailable factor is simply skipped for the passcode, as on iOS;
            // only an evaluation it ends gets an audit entry (and one commit fewer on the way).
            if policy == .biometrics {
                try store.recordOutcome(user: context.user, session: context.session, policy: purpose,
                                        factor: Factor.biometric.rawValue, outcome: unavailable.name, code: unavailable.rawValue)
            }
            return .unavailable(unavailable)
        }
        let hint = hint(fallbackTitle.map { "empty answer: \($0)" })
        var shownHint = false
        for _ in 0..<configuration.biometricTriesPerEvaluation {
            switch try store.admitAttempt(.biometric, user: context.user, session: context.session, purpose: purpose,
                                          configuration: configuration) {
            case .lockedOut:
                return .unavailable(.biometryLockout)
            case .throttled:
                return .unavailable(.biometryLockout)
            case .admitted(let attempt):
                if !shownHint { prompts.show(hint); shownHint = true }
                let result = runAdmitted {
                    context.biometricChecker.check(
                        service: configuration.biometricService, user: context.user, prompts: prompts,
                        interrupter: context.interrupter, emptyAnswerIsFallback: true,
                        typedLineIsPasscode: policy == .deviceOwner && !enrolling)
                }
                switch try settle(attempt, factor: .biometric, result: result) {
                case .success: return .success
                case .retry: continue
                case .fallback: return .fallback
                case .unavailable(let code):
                    // A reader that failed, timed out or went away: say so before the passcode is asked.
                    if policy == .deviceOwner { prompts.show("touchgate: \(AuthError(code).message) Use the passcode.") }
                    return .unavailable(code)
                }
            }
        }
        return .exhausted
    }

    /// Enrollment: the passcode first, then one biometric success from a not yet enrolled user.
    mutating func runEnrollment(record: UserRecord) throws {
        try passcodePhase()
        switch try biometricPhase(record: record, enrolling: true) {
        case .success: return
        case .fallback: throw AuthError(.userFallback)
        case .unavailable(let code): throw AuthError(code)
        case .exhausted: throw AuthError(.authenticationFailed)
        }
    }

    /// The passcode tries; returns on success and throws otherwise.
    mutating func passcodePhase() throws {
        guard context.checker.serviceExists(configuration.passcodeService) else {
            try store.recordOutcome(user: context.user, session: context.session, policy: purpose,
                                    factor: Factor.passcode.rawValue, outcome: AuthError.Code.passcodeNotSet.name,
                                    code: AuthError.Code.passcodeNotSet.rawValue)
            throw AuthError(.passcodeNotSet,
                            detail: context.checker.missingServiceDescription(configuration.passcodeService, role: "passcode"))
        }
        var shownHint = false
        for _ in 0..<AuthContext.passcodeTriesPerEvaluation {
            switch try store.admitAttempt(.passcode, user: context.user, session: context.session, purpose: purpose,
                                          configuration: configuration) {
            case .throttled(let wait):
                // Said once, by whoever reports the outcome (auth's one line, the gate's countdown).
                throw AuthError(.authenticationFailed, retryAfterSeconds: wait)
            case .lockedOut:
                throw AuthError(.authenticationFailed)
            case .admitted(let attempt):
                if !shownHint { prompts.show(hint("passcode for \(context.user)")); shownHint = true }
                let result = runAdmitted {
                    context.checker.check(
                        service: configuration.passcodeService, user: context.user, prompts: prompts,
                        interrupter: context.interrupter, emptyAnswerIsFallback: false)
                }
                switch try settle(attempt, factor: .passcode, result: result) {
                case .success: return
                case .retry: continue
                case .fallback, .unavailable(_):
                    throw AuthError(.passcodeNotSet)
                }
            }
        }
        throw AuthError(.authenticationFailed)
    }

    /// The line shown before a factor's first prompt: the reason, then `choice` and the cancel
    /// key, in parentheses when there is either.
    private func hint(_ choice: String?) -> String {
        var choices = choice ?? ""
        if let cancelTitle { choices += (choices.isEmpty ? "" : "; ") + "Ctrl-C: \(cancelTitle)" }
        return "touchgate: \(reason)" + (choices.isEmpty ? "" : " (\(choices))")
    }

    /// Runs the credential check of a try the store admitted; a checkpoint the admission left due
    /// folds the log into the file meanwhile, on a helper thread.
    private func runAdmitted(_ check: () -> CredentialCheckResult) -> CredentialCheckResult {
        let folding = store.foldLogInBackground()
        defer { folding?.join() }
        return check()
    }

    enum TryEnd {
        case success
        case retry
        case fallback
        case unavailable(AuthError.Code)
    }

    /// Records how one try ended and decides what comes next; throws when the evaluation stops.
    ///
    /// Where a stored try's PAM result is read (the store-less gate counts in memory the same way,
    /// ``OfflinePasscodeCheck``). A try that handed a secret to the stack stays counted however it
    /// ended (a cancel or end of input at a later prompt of the same stack included); only a try
    /// that never did is taken back.
    func settle(_ attempt: Int64, factor: Factor, result: CredentialCheckResult) throws -> TryEnd {
        let user = context.user
        /// A try the conversation ended with `code`: counted when a secret reached the stack.
        func stopped(_ code: AuthError.Code) -> AttemptResult {
            result.submittedAnswer ? .failure(code) : .notChecked(code)
        }
        // An interruption that arrived while a module worked counts as much as one at a prompt.
        if let interruption = result.interruption ?? context.interrupter.pending {
            let code = interruption.code
            let settled: AttemptResult = if result.outcome == .success, !result.stoppedEarly {
                .verifiedButCancelled(code)
            } else {
                stopped(code)
            }
            try store.finishAttempt(attempt, user: user, factor: factor, result: settled)
            throw AuthError(code)
        }
        if result.fallbackChosen {
            try store.finishAttempt(attempt, user: user, factor: factor, result: stopped(.userFallback))
            return .fallback
        }
        if result.endOfInput {
            try store.finishAttempt(attempt, user: user, factor: factor, result: stopped(.userCancel))
            throw AuthError(.userCancel)
        }
        if result.notInteractive {
            try store.finishAttempt(attempt, user: user, factor: factor, result: stopped(.notInteractive))
            throw AuthError(.notInteractive)
        }
        if let invalid = result.invalidAnswer {
            prompts.show("touchgate: \(invalid)")
            try store.finishAttempt(attempt, user: user, factor: factor, result: .failure(.authenticationFailed))
            return .retry
        }
        guard result.started else {
            let code: AuthError.Code = factor == .biometric ? .biometryNotAvailable : .passcodeNotSet
            try store.finishAttempt(attempt, user: user, factor: factor, result: .notChecked(code))
            return .unavailable(code)
        }
        guard let failure = AuthError(result.outcome, factor: factor) else {
            if factor == .passcode, !result.submittedAnswer {
                // The stack accepted no secret at all (nullok, pam_permit): that must never unlock.
                try store.finishAttempt(attempt, user: user, factor: factor, result: .notChecked(.passcodeNotSet))
                return .unavailable(.passcodeNotSet)
            }
            try store.finishAttempt(attempt, user: user, factor: factor, result: .success)
            return .success
        }
        if result.outcome.isCountedFailure {
            try store.finishAttempt(attempt, user: user, factor: factor, result: .failure(failure.code))
            return .retry
        }
        try store.finishAttempt(attempt, user: user, factor: factor, result: .notChecked(failure.code))
        return .unavailable(failure.code)
    }
}

extension CredentialCheckResult {
    /// The conversation stopped the transaction before the stack decided.
    var stoppedEarly: Bool {
        fallbackChosen || endOfInput || notInteractive || invalidAnswer != nil || interruption != nil
    }
}
