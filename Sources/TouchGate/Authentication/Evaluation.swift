import Synchronization

/// The driver of one evaluation: performs the actions of its ``EvaluationStateMachine`` (the
/// store's admissions and settlements, the checks, the prompts' lines) and feeds their results
/// back, until the machine finishes.
///
/// The machine sits behind a lock so another thread can interrupt it (``interrupt(_:)``, from
/// ``AuthContext/invalidate()`` or ``AuthContext/didEnterBackground()``): its answer, cancelling
/// the running check, wakes the prompt or kills the biometric worker at once.
final class Evaluation: Sendable {
    let context: AuthContext
    /// What the audit log names the evaluation: the policy, or the command it guards.
    let purpose: AuditPolicy
    let configuration: Configuration
    nonisolated(unsafe) let prompts: any PromptSource
    private let machine: Mutex<EvaluationStateMachine>

    init(context: AuthContext, mode: EvaluationStateMachine.Mode, purpose: AuditPolicy, configuration: Configuration,
         prompts: any PromptSource) {
        self.context = context
        self.purpose = purpose
        self.configuration = configuration
        self.prompts = prompts
        self.machine = Mutex(EvaluationStateMachine(mode: mode))
    }

    private var store: Store { context.store }

    /// Runs the evaluation from `snapshot`; returns on success and throws otherwise.
    func run(_ snapshot: EvaluationStateMachine.Snapshot) throws(AuthError) {
        var action = machine.withLock { $0.start(snapshot) }
        while true {
            switch action {
            case .admit(let factor):
                let admission = try AuthError.wrapping { () throws(StoreError) in
                    try store.admitAttempt(factor, user: context.user, session: context.session,
                                           purpose: purpose, configuration: configuration)
                }
                action = machine.withLock { machine in
                    switch admission {
                    case .admitted(let attempt): machine.admitted(attempt)
                    case .lockedOut: machine.lockedOut()
                    case .throttled(let wait): machine.throttled(retryAfterSeconds: wait)
                    }
                }
            case .check(let check, _, let step):
                prompts.notify(.tryStarted(step))
                let result = runAdmitted(check)
                // A signal that arrived while a module worked (SIGINT, SIGTERM, SIGUSR1) reaches the
                // machine before the result; the check it would cancel is over already.
                if let pending = context.interrupter.pending { _ = machine.withLock { $0.interrupted(pending) } }
                action = machine.withLock { $0.checkEnded(result) }
            case .cancelCheck(let interruption):
                // Only ``interrupt(_:)`` gets this answer (the loop drops the one after a check);
                // should it come here, the evaluation ends cancelled, never in success.
                throw AuthError(interruption.code)
            case .settle(let attempt, let factor, let result, let notice):
                try AuthError.wrapping { () throws(StoreError) in
                    try store.finishAttempt(attempt, user: context.user, factor: factor, result: result)
                }
                if let notice { prompts.notify(notice) }
                action = machine.withLock { $0.settled() }
            case .finish(let error, let audit):
                guard let error else { return }
                if let audit {
                    try AuthError.wrapping { () throws(StoreError) in
                        try store.recordOutcome(user: context.user, session: context.session, policy: purpose,
                                                factor: AuditFactor(audit), outcome: .error(error.code))
                    }
                }
                throw error
            }
        }
    }

    /// An interruption from another thread (or a lifecycle event): the machine decides, and a
    /// running check is cancelled at once (the prompt woken, the biometric worker killed).
    func interrupt(_ interruption: Interruption) {
        if case .cancelCheck(let cancel)? = machine.withLock({ $0.interrupted(interruption) }) {
            context.interrupter.post(cancel)
        }
    }

    /// Runs the check of a try the store admitted; a checkpoint the admission left due folds the
    /// log into the file meanwhile, on a helper thread.
    private func runAdmitted(_ check: EvaluationStateMachine.Check) -> CredentialCheckResult {
        let folding = store.foldLogInBackground()
        defer { folding?.join() }
        switch check {
        case .biometric(let typedLineIsPasscode):
            return context.biometricChecker.check(
                service: configuration.biometricService, user: context.user, prompts: prompts,
                interrupter: context.interrupter, emptyAnswerIsFallback: true, typedLineIsPasscode: typedLineIsPasscode)
        case .passcode:
            return context.checker.check(
                service: configuration.passcodeService, user: context.user, prompts: prompts,
                interrupter: context.interrupter, emptyAnswerIsFallback: false)
        }
    }
}

extension CredentialCheckResult {
    /// The conversation stopped the transaction before the stack decided.
    var stoppedEarly: Bool {
        fallbackChosen || endOfInput || notInteractive || invalidAnswer != nil || interruption != nil
    }
}
