import Synchronization
import TouchGateCore
import TouchGateSystem
import TouchGateTerminal

/// The driver of one evaluation: performs the actions of its ``EvaluationStateMachine`` (the
/// ledger's admissions and settlements, the checks, the prompts' lines) and feeds their results
/// back, until the machine finishes.
///
/// The machine sits behind a lock so another thread can interrupt it (``interrupt(_:)``, from
/// ``AuthContext/invalidate()`` or ``AuthContext/didEnterBackground()``): its answer, cancelling
/// the running check, wakes the prompt or kills the biometric worker at once. That is all another
/// thread reaches; the prompts are the evaluating thread's, checked against the context's turn.
final class Evaluation: Sendable {
    let context: AuthContext
    /// What the audit log names the evaluation: the policy, or the command it guards.
    let purpose: AuditPolicy
    let configuration: Configuration
    /// Used only in the context's turn (``prompts`` checks it): never by an interrupting thread.
    nonisolated(unsafe) private let promptsInTurn: any PromptSource
    private let machine: Mutex<EvaluationStateMachine>

    init(context: AuthContext, mode: EvaluationStateMachine.Mode, purpose: AuditPolicy, configuration: Configuration,
         prompts: any PromptSource) {
        self.context = context
        self.purpose = purpose
        self.configuration = configuration
        self.promptsInTurn = prompts
        self.machine = Mutex(EvaluationStateMachine(mode: mode))
    }

    private var ledger: any AttemptLedger { context.ledger }

    /// The prompts, for the thread that holds the context's turn (a trap for any other).
    var prompts: any PromptSource {
        precondition(context.turn.isHeldByCurrentThread, "an evaluation's prompts used outside its context's turn")
        return promptsInTurn
    }

    /// Runs the evaluation from `snapshot`; returns the success and throws otherwise.
    func run(_ snapshot: EvaluationStateMachine.Snapshot) throws(AuthError) -> EvaluationSuccess {
        var next = machine.withLock { $0.start(snapshot) }
        // The answer of touchgate's own passcode prompt, from its Enter until the stack took it.
        var submitted: SubmittedAnswer?
        defer { submitted?.wipe() }
        while true {
            switch next {
            case .ask(let step):
                (next, submitted) = try ask(step)
            case .admit(let factor):
                next = try admit(factor, answer: submitted)
                submitted?.wipe()
                submitted = nil
            case .finish(nil, _):
                return EvaluationSuccess(user: context.user, purpose: purpose)
            case .finish(let error?, let audit):
                if let audit {
                    try AuthError.wrapping { () throws(StoreError) in
                        try ledger.recordOutcome(user: context.user, session: context.session, policy: purpose,
                                                 factor: AuditFactor(audit), outcome: .error(error.code))
                    }
                }
                throw error
            }
        }
    }

    /// touchgate's own passcode prompt, before anything is counted: a throttled passcode is not
    /// asked; a submitted answer is kept for the admitted try's stack, anything else ends the try
    /// uncounted.
    private func ask(_ step: PromptStep) throws(AuthError) -> (EvaluationStateMachine.NextAction, SubmittedAnswer?) {
        let wait = try AuthError.wrapping { () throws(StoreError) in
            try ledger.passcodeRetryAfter(user: context.user, session: context.session, purpose: purpose,
                                          configuration: configuration)
        }
        if let wait { return (machine.withLock { $0.throttled(retryAfterSeconds: wait) }, nil) }
        prompts.notify(.tryStarted(step))
        let answer = prompts.ask(SubmittedAnswer.prompt, echo: false, interrupter: context.interrupter)
        let end: EvaluationStateMachine.PromptEnd
        switch answer {
        case .answer(_): end = .submitted
        case .invalid(_): end = .submitted
        case .interrupted(let interruption): end = .interrupted(interruption)
        case .endOfInput: end = .endOfInput
        case .notInteractive: end = .notInteractive
        }
        let submitted = SubmittedAnswer(answer, base: prompts)
        let next = machine.withLock { $0.answered(end) }
        guard case .admit(_) = next else {
            submitted.wipe()
            return (next, nil)
        }
        return (next, submitted)
    }

    /// One try of `factor`: its admission, its check when admitted (a passcode's with the answer
    /// submitted at touchgate's own prompt), its settlement; what follows.
    private func admit(_ factor: Factor, answer: SubmittedAnswer?) throws(AuthError) -> EvaluationStateMachine.NextAction {
        let admission = try AuthError.wrapping { () throws(StoreError) in
            try ledger.admitAttempt(factor, user: context.user, session: context.session,
                                    purpose: purpose, configuration: configuration)
        }
        let admitted: EvaluationStateMachine.AdmittedAction
        switch admission {
        case .admitted(let attempt): admitted = machine.withLock { $0.admitted(attempt) }
        case .lockedOut: return machine.withLock { $0.lockedOut() }
        case .passcodeRequired(let reason): return machine.withLock { $0.passcodeRequired(reason) }
        case .throttled(let wait): return machine.withLock { $0.throttled(retryAfterSeconds: wait) }
        }
        let settlement: EvaluationStateMachine.CheckEndedAction
        switch admitted {
        case .check(let check, _, let step):
            if let step { prompts.notify(.tryStarted(step)) }
            let result = runAdmitted(check, answer: answer)
            // A signal that arrived while a module worked (SIGINT, SIGTERM, SIGUSR1) reaches the
            // machine before the result; the check it would cancel is over already.
            if let pending = context.interrupter.pending { _ = machine.withLock { $0.interrupted(pending) } }
            settlement = machine.withLock { $0.checkEnded(result) }
        case .settle(let attempt, let factor, let result, let notice):
            settlement = .settle(attempt: attempt, factor: factor, result: result, notice: notice)
        }
        switch settlement {
        case .settle(let attempt, let factor, let result, let notice):
            try AuthError.wrapping { () throws(StoreError) in
                try ledger.finishAttempt(attempt, user: context.user, factor: factor, result: result)
            }
            if let notice { prompts.notify(notice) }
        }
        return machine.withLock { $0.settled() }
    }

    /// An interruption from another thread (or a lifecycle event): the machine decides, and a
    /// running check is cancelled at once (the prompt woken, the biometric worker killed).
    func interrupt(_ interruption: Interruption) {
        if case .cancelCheck(let cancel) = machine.withLock({ $0.interrupted(interruption) }) {
            context.interrupter.post(cancel)
        }
    }

    /// Runs the check of a try the store admitted; a checkpoint the admission left due folds the
    /// log into the file meanwhile, on a helper thread.
    private func runAdmitted(_ check: EvaluationStateMachine.Check, answer: SubmittedAnswer?) -> CredentialCheckResult {
        let folding = ledger.foldLogInBackground()
        defer { folding?.join() }
        switch check {
        case .biometric(let typedLineIsPasscode):
            return context.biometricChecker.check(
                service: configuration.biometricService, user: context.user, prompts: prompts,
                interrupter: context.interrupter, emptyAnswerIsFallback: true, typedLineIsPasscode: typedLineIsPasscode)
        case .passcode:
            return context.checker.check(
                service: configuration.passcodeService, user: context.user, prompts: answer ?? prompts,
                interrupter: context.interrupter, emptyAnswerIsFallback: false)
        }
    }
}
