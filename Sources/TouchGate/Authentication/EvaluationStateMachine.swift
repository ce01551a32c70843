import TouchGateCore

/// The rules of one evaluation, free of I/O: which factor is tried, when a try is admitted,
/// how a check's result is settled and counted, and how the evaluation ends.
///
/// A passcode try counts when it is made: touchgate asks at its own prompt first (``NextAction/ask(_:)``)
/// and admits the try only once an answer is submitted, so a prompt left open, cancelled, hung
/// up or killed before Enter counts nothing; the admitted check hands that answer to the stack's
/// first echo-off prompt. A biometric try is admitted before its stack runs (the wait for the
/// sensor is the try), and taken back when the stack ends without checking one.
///
/// Shaped like swift-nio's state machines: a private ``State`` carries the data of each step;
/// every input is a `mutating` method that returns its own action type, holding only what can
/// follow that input (admit a try in the store, run a check, settle a try, cancel a running
/// check, finish). The driver
/// (``Evaluation``) does the store work, the PAM calls and the prompts, and feeds their results
/// back; so every rule of the evaluation lives here once, and is unit-tested with events alone.
struct EvaluationStateMachine: Sendable {
    /// What is evaluated.
    enum Mode: Sendable, Equatable {
        /// A policy: the biometric tries, then (device-owner) the passcode tries.
        case policy(AuthPolicy)
        /// The passcode alone (`reset`, `unenroll`).
        case passcodeOnly
        /// Enrollment: the passcode, then one biometric success of a user not yet enrolled.
        case enrollment
    }

    /// What the driver read before the first try: the user's record, the configuration, and
    /// whether each stack is there.
    struct Snapshot: Sendable {
        var record: UserRecord
        var configuration: Configuration
        /// The remote host of a remote session (SSH), or `nil` for a local one.
        var remoteHost: String?
        var biometricStackExists: Bool
        /// `nil` when the passcode stack exists; otherwise the sentence naming what is missing.
        var passcodeStackMissing: String?
        /// The reason shown before a factor's first prompt.
        var reason: String
        /// The label of the fallback (`nil` hides it).
        var fallbackTitle: String?
        /// The label of the cancel key, Ctrl-C (`nil` hides it).
        var cancelTitle: String?
        /// How many passcode answers one evaluation accepts.
        var passcodeTries: Int
        /// Why the passcode is required before the finger (``PasscodeRequirement``), or `nil`:
        /// a policy's evaluation then makes no biometric PAM call at all.
        var passcodeRequired: PasscodeRequirement.Reason?
        /// logind reports the lid closed (``LidState``): the reader under it is not waited for.
        var lidClosed = false

        init(
            record: UserRecord, configuration: Configuration, remoteHost: String? = nil, biometricStackExists: Bool = true,
            passcodeStackMissing: String? = nil, reason: String = "authenticate", fallbackTitle: String? = "Use Passcode",
            cancelTitle: String? = "Cancel", passcodeTries: Int = 3, passcodeRequired: PasscodeRequirement.Reason? = nil
        ) {
            self.record = record
            self.configuration = configuration
            self.remoteHost = remoteHost
            self.biometricStackExists = biometricStackExists
            self.passcodeStackMissing = passcodeStackMissing
            self.reason = reason
            self.fallbackTitle = fallbackTitle
            self.cancelTitle = cancelTitle
            self.passcodeTries = passcodeTries
            self.passcodeRequired = passcodeRequired
        }
    }

    /// A check to run for an admitted try.
    enum Check: Sendable, Equatable {
        /// The biometric stack, in a process a cancel can kill. While it only waits for the
        /// sensor an empty line is the fallback; with `typedLineIsPasscode` a non-empty line is
        /// kept for the passcode prompt (and leaves the wait), otherwise it is dropped and the wait
        /// goes on (``BiometricWaitStateMachine``).
        case biometric(typedLineIsPasscode: Bool)
        /// The passcode stack.
        case passcode
    }

    /// What ``start(_:)``, ``lockedOut()``, ``throttled(retryAfterSeconds:)`` and ``settled()``
    /// ask: the next try, or the end.
    enum NextAction: Sendable, Equatable {
        /// Ask the store to admit (and count ahead) one try of the factor; answer with
        /// ``admitted(_:)``, ``lockedOut()`` or ``throttled(retryAfterSeconds:)``.
        case admit(Factor)
        /// A passcode try, before anything is counted: when the passcode is throttled now, answer
        /// ``throttled(retryAfterSeconds:)``; otherwise tell the prompt source `step`
        /// (``PromptEvent/tryStarted(_:)``), ask touchgate's own passcode prompt, and answer
        /// ``answered(_:)``. Only a submitted answer is admitted.
        case ask(PromptStep)
        /// The evaluation is over: `nil` for success, or the error it ends with. With `audit`,
        /// the store's log first gets an entry for that factor (an evaluation that ended before
        /// any try of it was admitted).
        case finish(AuthError?, audit: Factor?)
    }

    /// What ``admitted(_:)`` asks.
    enum AdmittedAction: Sendable, Equatable {
        /// Tell the prompt source which try this is (``PromptEvent/tryStarted(_:)``, unless
        /// `step` is `nil`: the passcode's prompt told it already), then run the check of try
        /// `attempt`; answer with ``checkEnded(_:)``.
        case check(Check, attempt: Int64, step: PromptStep?)
        /// Record how try `attempt` ended (an interruption came first: it never reached a
        /// stack); answer with ``settled()``.
        case settle(attempt: Int64, factor: Factor, result: AttemptResult, notice: PromptEvent?)
    }

    /// What ``checkEnded(_:)`` asks: record how try `attempt` ended, then tell the prompt source
    /// `notice` (when there is one); answer with ``settled()``.
    enum CheckEndedAction: Sendable, Equatable {
        case settle(attempt: Int64, factor: Factor, result: AttemptResult, notice: PromptEvent?)
    }

    /// How touchgate's own passcode prompt ended (``NextAction/ask(_:)``).
    enum PromptEnd: Sendable, Equatable {
        /// An answer was submitted (Enter): the try is made, and is admitted. A line refused as
        /// an answer (too long, a NUL byte) is one too: it is counted as a wrong try.
        case submitted
        case interrupted(Interruption)
        case endOfInput
        case notInteractive
    }

    /// What ``interrupted(_:)`` asks.
    enum InterruptedAction: Sendable, Equatable {
        /// Nothing at once: the interruption ends the evaluation at its next step.
        case endsAtNextStep
        /// Cancel the running check: the prompt is woken, the biometric worker killed.
        case cancelCheck(Interruption)
    }

    /// How the biometric factor's tries ended, when they did not end the evaluation.
    private enum BiometricEnd: Equatable {
        case fallback
        case unavailable(AuthError.Code)
        case exhausted
    }

    /// What comes after the try being settled.
    private enum Next: Equatable {
        case retry
        /// The input ended at a prompt: userCancel, saying so.
        case endOfInput
        case fallback
        /// The factor could not be checked; `detail` says why when the code alone would mislead.
        case unavailable(AuthError.Code, detail: String? = nil)
        case success
        case stop(AuthError.Code)
    }

    /// What a started evaluation carries from step to step: what the driver read, and the wrong
    /// tries of each factor it counted beyond the record's.
    private struct Run: Sendable {
        var snapshot: Snapshot
        var counted: [Factor: Int] = [:]
        /// The rule that kept the finger from being tried, said at the passcode's first prompt.
        var fingerRefusedBy: PasscodeRequirement.Reason?
    }

    private enum State {
        /// Before ``start(_:)``; an interruption that came first ends the evaluation at its start.
        case initial(interruption: Interruption?)
        /// touchgate's own passcode prompt is open; nothing is counted yet.
        case asking(Run, tries: Int, interruption: Interruption?)
        /// Waiting for the store's answer to an admission.
        case admitting(Run, Factor, tries: Int, interruption: Interruption?)
        /// A check runs.
        case checking(Run, Factor, attempt: Int64, tries: Int, interruption: Interruption?)
        /// Waiting for the store to record a try; `next` is what follows.
        case settling(Run, Factor, tries: Int, next: Next)
        case finished
    }

    let mode: Mode
    private var state = State.initial(interruption: nil)

    init(mode: Mode) {
        self.mode = mode
    }

    private var policy: AuthPolicy {
        switch mode {
        case .policy(let policy): policy
        case .passcodeOnly: .deviceOwner
        case .enrollment: .biometrics
        }
    }

    /// The reason the biometric factor cannot be used now, or `nil` when it can (also for
    /// `canEvaluate`): a remote session, no stack, no biometric factor
    /// (``UserRecord/hasBiometricFactor(under:)``, the one rule), a lockout.
    static func biometricAvailability(
        record: UserRecord, configuration: Configuration, remoteHost: String?, stackExists: Bool
    ) -> AuthError.Code? {
        if remoteHost != nil { return .biometryNotAvailable }
        guard stackExists else { return .biometryNotAvailable }
        guard record.hasBiometricFactor(under: configuration) else { return .biometryNotEnrolled }
        if LockoutPolicy(configuration: configuration).biometricLockedOut(failures: record.biometricFailures) {
            return .biometryLockout
        }
        return nil
    }

    /// The error of a biometric factor that cannot be used (`code`, from
    /// ``biometricAvailability(record:configuration:remoteHost:stackExists:)`` or a try): in a
    /// remote session, `biometryNotAvailable` says why.
    static func biometricError(
        _ code: AuthError.Code, remoteHost: String?, passcodeRequired: PasscodeRequirement.Reason? = nil
    ) -> AuthError {
        if code == .biometryLockout {
            // A lockout always has a reason; the store's refusal is the failures'.
            let reason = passcodeRequired ?? .failures
            return AuthError(code, detail: reason == .failures ? nil : reason.sentence, passcodeRequired: reason)
        }
        let detail = code == .biometryNotAvailable
            ? remoteHost.map { "This is a remote session (from \($0)): the biometric factor of this machine is not available." }
            : nil
        return AuthError(code, detail: detail)
    }

    // MARK: - Inputs

    /// The evaluation starts with what the driver read.
    mutating func start(_ snapshot: Snapshot) -> NextAction {
        let interruption: Interruption?
        switch state {
        case .initial(let pending): interruption = pending
        case .asking, .admitting, .checking, .settling, .finished: preconditionFailure("start twice")
        }
        if let interruption { return finish(AuthError(interruption.code)) }
        let run = Run(snapshot: snapshot)
        switch mode {
        case .policy(_): return startBiometric(run)
        case .passcodeOnly, .enrollment: return startPasscode(run)
        }
    }

    /// The store admitted try `attempt` (already counted as a failure until it is settled).
    mutating func admitted(_ attempt: Int64) -> AdmittedAction {
        let run: Run, factor: Factor, tries: Int, interruption: Interruption?
        switch state {
        case .admitting(let admitting, let admitted, let made, let pending):
            (run, factor, tries, interruption) = (admitting, admitted, made, pending)
        case .initial, .asking, .checking, .settling, .finished:
            preconditionFailure("not admitting")
        }
        if let interruption {
            // Cancelled while the store admitted it: the try never reached a stack.
            state = .settling(run, factor, tries: tries, next: .stop(interruption.code))
            return .settle(attempt: attempt, factor: factor, result: .notChecked(interruption.code), notice: nil)
        }
        state = .checking(run, factor, attempt: attempt, tries: tries + 1, interruption: nil)
        let step = step(run, for: factor, attempt: tries + 1)
        switch factor {
        case .biometric:
            return .check(.biometric(typedLineIsPasscode: mode == .policy(.deviceOwner)), attempt: attempt, step: step)
        case .passcode:
            // Its try started at touchgate's own prompt, which told the prompt source.
            return .check(.passcode, attempt: attempt, step: nil)
        }
    }

    /// touchgate's own passcode prompt ended: a submitted answer is admitted (``NextAction/admit(_:)``);
    /// a prompt that ended without one counts nothing and ends the evaluation. An interruption
    /// that came while the prompt was open decides, even over an answer submitted at once: that
    /// answer never reaches a stack.
    mutating func answered(_ end: PromptEnd) -> NextAction {
        let run: Run, tries: Int, pending: Interruption?
        switch state {
        case .asking(let asking, let made, let interruption): (run, tries, pending) = (asking, made, interruption)
        case .initial, .admitting, .checking, .settling, .finished: preconditionFailure("not asking")
        }
        if let pending { return finish(AuthError(pending.code), audit: .passcode) }
        switch end {
        case .submitted:
            state = .admitting(run, .passcode, tries: tries, interruption: nil)
            return .admit(.passcode)
        case .interrupted(let interruption):
            return finish(AuthError(interruption.code), audit: .passcode)
        case .endOfInput:
            return finish(AuthError(.userCancel, detail: "The input ended before an answer (end of input)."), audit: .passcode)
        case .notInteractive:
            return finish(AuthError(.notInteractive), audit: .passcode)
        }
    }

    /// The store refused the try: the factor is locked out.
    mutating func lockedOut() -> NextAction {
        refused(retryAfterSeconds: nil)
    }

    /// The store refused the finger: a rule of ``PasscodeRequirement`` held as it admitted the
    /// try (a lockdown set since the evaluation read the record). Device-owner asks for the
    /// passcode, saying why; biometrics ends with biometryLockout and the reason (the store wrote
    /// the audit entry).
    mutating func passcodeRequired(_ reason: PasscodeRequirement.Reason) -> NextAction {
        guard case .admitting(var run, .biometric, _, let interruption) = state else { preconditionFailure("not admitting the finger") }
        if let interruption { return finish(AuthError(interruption.code)) }
        run.fingerRefusedBy = reason
        if policy == .deviceOwner { return startPasscode(run) }
        return finish(Self.biometricError(.biometryLockout, remoteHost: run.snapshot.remoteHost, passcodeRequired: reason))
    }

    /// The store refused the try, or the passcode's prompt before it (``NextAction/ask(_:)``):
    /// the passcode is throttled for `seconds`.
    mutating func throttled(retryAfterSeconds seconds: Int) -> NextAction {
        refused(retryAfterSeconds: seconds)
    }

    /// An interruption arrived: a signal (Ctrl-C, SIGTERM, SIGHUP), ``AuthContext/invalidate()``
    /// or a `did-enter-background` of the session (both `application`). A running check is
    /// cancelled; otherwise it ends the evaluation at its next step.
    mutating func interrupted(_ interruption: Interruption) -> InterruptedAction {
        switch state {
        case .initial(nil):
            state = .initial(interruption: interruption)
            return .endsAtNextStep
        case .asking(let run, let tries, nil):
            // The prompt is woken; nothing was counted.
            state = .asking(run, tries: tries, interruption: interruption)
            return .cancelCheck(interruption)
        case .admitting(let run, let factor, let tries, nil):
            state = .admitting(run, factor, tries: tries, interruption: interruption)
            return .endsAtNextStep
        case .checking(let run, let factor, let attempt, let tries, nil):
            state = .checking(run, factor, attempt: attempt, tries: tries, interruption: interruption)
            return .cancelCheck(interruption)
        case .settling(let run, let factor, let tries, let next):
            // A try that is being recorded as a success stays one; anything else stops here.
            switch next {
            case .success, .stop(_), .endOfInput: break
            case .retry, .fallback, .unavailable(_, _):
                state = .settling(run, factor, tries: tries, next: .stop(interruption.code))
            }
            return .endsAtNextStep
        case .initial(_?), .asking(_, _, _?), .admitting(_, _, _, _?), .checking(_, _, _, _, _?), .finished:
            // The first interruption decides.
            return .endsAtNextStep
        }
    }

    /// The running check ended: the stack's typed outcome and how the conversation ended.
    ///
    /// A try that handed a secret to the stack stays counted however it ended (a cancel or end
    /// of input at a later prompt of the same stack included); only a try that never did is
    /// taken back. An interruption that arrived while a module worked counts as much as one at
    /// a prompt, and turns even a verified credential into a cancel.
    mutating func checkEnded(_ result: CredentialCheckResult) -> CheckEndedAction {
        var run: Run
        let factor: Factor, attempt: Int64, tries: Int, pending: Interruption?
        switch state {
        case .checking(let checking, let checked, let admitted, let made, let interruption):
            (run, factor, attempt, tries, pending) = (checking, checked, admitted, made, interruption)
        case .initial, .asking, .admitting, .settling, .finished:
            preconditionFailure("not checking")
        }
        func stopped(_ code: AuthError.Code) -> AttemptResult {
            result.submittedAnswer ? .failure(code) : .notChecked(code)
        }
        func settle(_ settled: AttemptResult, _ next: Next, notice: PromptEvent? = nil) -> CheckEndedAction {
            state = .settling(run, factor, tries: tries, next: next)
            return .settle(attempt: attempt, factor: factor, result: settled, notice: notice)
        }
        if let interruption = result.interruption ?? pending {
            let code = interruption.code
            let settled: AttemptResult = result.outcome == .success && !result.stoppedEarly
                ? .verifiedButCancelled(code) : stopped(code)
            return settle(settled, .stop(code))
        }
        if result.fallbackChosen { return settle(stopped(.userFallback), .fallback) }
        if result.endOfInput { return settle(stopped(.userCancel), .endOfInput) }
        if result.notInteractive { return settle(stopped(.notInteractive), .stop(.notInteractive)) }
        if let invalid = result.invalidAnswer {
            run.counted[factor, default: 0] += 1
            return settle(.failure(.authenticationFailed), .retry, notice: .answerRefused(invalid))
        }
        guard result.started else {
            // No module ran (libpam could not be loaded, or pam_start failed): nothing was
            // checked, and the words say so rather than that no passcode is set.
            // (The biometric factor's words are its own: it goes on to the passcode.)
            let code: AuthError.Code = factor == .biometric ? .biometryNotAvailable : .passcodeNotSet
            let detail = factor == .biometric ? nil : "PAM could not start the '\(run.snapshot.configuration.passcodeService)' "
                + "stack (\(PAMOutcome.notStartedCauses)): nothing was checked."
            return settle(.notChecked(code), .unavailable(code, detail: detail), notice: unavailableNotice(factor, code))
        }
        guard let failure = result.outcome.errorCode(for: factor) else {
            if factor == .passcode, !result.submittedAnswer {
                // The stack accepted no secret at all (nullok, pam_permit): that must never unlock.
                return settle(.notChecked(.passcodeNotSet), .unavailable(.passcodeNotSet))
            }
            return settle(.success, .success)
        }
        if result.outcome.isCountedFailure {
            run.counted[factor, default: 0] += 1
            return settle(.failure(failure), .retry, notice: .tryFailed(factor, attemptsLeft(run, factor, triesMade: tries)))
        }
        return settle(.notChecked(failure), .unavailable(failure), notice: unavailableNotice(factor, failure))
    }

    /// The store recorded the try being settled.
    mutating func settled() -> NextAction {
        let run: Run, factor: Factor, tries: Int, next: Next
        switch state {
        case .settling(let settling, let settled, let made, let then): (run, factor, tries, next) = (settling, settled, made, then)
        case .initial, .asking, .admitting, .checking, .finished: preconditionFailure("not settling")
        }
        switch (factor, next) {
        case (_, .stop(let code)):
            return finish(AuthError(code))
        case (_, .endOfInput):
            return finish(AuthError(.userCancel, detail: "The input ended before an answer (end of input)."))
        case (.biometric, .success):
            return finish(nil)
        case (.biometric, .retry):
            guard tries < run.snapshot.configuration.biometricTriesPerEvaluation else {
                return biometricEnded(run, .exhausted)
            }
            state = .admitting(run, .biometric, tries: tries, interruption: nil)
            return .admit(.biometric)
        case (.biometric, .fallback):
            return biometricEnded(run, .fallback)
        case (.biometric, .unavailable(let code, _)):
            return biometricEnded(run, .unavailable(code))
        case (.passcode, .success):
            if mode == .enrollment { return startBiometric(run) }
            return finish(nil)
        case (.passcode, .retry):
            guard tries < run.snapshot.passcodeTries else {
                return finish(AuthError(.authenticationFailed, detail: "Authentication failed: the passcode was wrong \(Self.times(tries))."))
            }
            state = .asking(run, tries: tries, interruption: nil)
            return .ask(step(run, for: .passcode, attempt: tries + 1))
        case (.passcode, .fallback):
            return finish(AuthError(.passcodeNotSet))
        case (.passcode, .unavailable(_, let detail)):
            return finish(AuthError(.passcodeNotSet, detail: detail))
        }
    }

    // MARK: - Steps

    private mutating func startBiometric(_ run: Run) -> NextAction {
        var record = run.snapshot.record
        if mode == .enrollment { record.enrolled = true }
        if let unavailable = Self.biometricAvailability(
            record: record, configuration: run.snapshot.configuration, remoteHost: run.snapshot.remoteHost,
            stackExists: run.snapshot.biometricStackExists), unavailable != .biometryLockout {
            // Under deviceOwner an unavailable factor is simply skipped for the passcode, as on iOS;
            // only an evaluation it ends gets an audit entry.
            return biometricEnded(run, .unavailable(unavailable), audit: true)
        }
        if mode != .enrollment, let required = run.snapshot.passcodeRequired, required != .failures {
            // A rule of PasscodeRequirement: the finger is never tried, no PAM call is made.
            var run = run
            run.fingerRefusedBy = required
            return biometricEnded(run, .unavailable(.biometryLockout), audit: true)
        }
        if mode != .enrollment, run.snapshot.lidClosed {
            // The reader is under the closed lid: device-owner asks for the passcode at once.
            return biometricEnded(run, .unavailable(.biometryNotAvailable), audit: true)
        }
        // A lockout is the store's to say (it writes the audit entry), so parallel evaluations agree.
        state = .admitting(run, .biometric, tries: 0, interruption: nil)
        return .admit(.biometric)
    }

    private mutating func startPasscode(_ run: Run) -> NextAction {
        if let missing = run.snapshot.passcodeStackMissing {
            state = .finished
            return .finish(AuthError(.passcodeNotSet, detail: missing), audit: .passcode)
        }
        state = .asking(run, tries: 0, interruption: nil)
        return .ask(step(run, for: .passcode, attempt: 1))
    }

    /// The biometric tries are over without a success: device-owner goes on to the passcode.
    private mutating func biometricEnded(_ run: Run, _ end: BiometricEnd, audit: Bool = false) -> NextAction {
        if policy == .deviceOwner { return startPasscode(run) }
        state = .finished
        switch end {
        case .fallback:
            return .finish(AuthError(.userFallback), audit: nil)
        case .exhausted:
            let tries = run.snapshot.configuration.biometricTriesPerEvaluation
            return .finish(AuthError(.authenticationFailed, detail: "Authentication failed: the biometric factor did not match \(Self.times(tries))."),
                           audit: nil)
        case .unavailable(let code):
            if code == .biometryNotAvailable, audit, run.snapshot.lidClosed, run.snapshot.remoteHost == nil {
                return .finish(AuthError(code, detail: "The lid is closed: the biometric factor is not available."), audit: .biometric)
            }
            return .finish(Self.biometricError(code, remoteHost: run.snapshot.remoteHost,
                                               passcodeRequired: audit ? run.snapshot.passcodeRequired : nil),
                           audit: audit ? .biometric : nil)
        }
    }

    private mutating func refused(retryAfterSeconds: Int?) -> NextAction {
        let run: Run, factor: Factor, interruption: Interruption?
        switch state {
        case .admitting(let admitting, let admitted, _, let pending): (run, factor, interruption) = (admitting, admitted, pending)
        case .asking(let asking, _, let pending): (run, factor, interruption) = (asking, .passcode, pending)
        case .initial, .checking, .settling, .finished: preconditionFailure("not admitting")
        }
        if let interruption { return finish(AuthError(interruption.code)) }
        switch factor {
        case .biometric:
            return biometricEnded(run, .unavailable(.biometryLockout))
        case .passcode:
            // Said once, by whoever reports the outcome (auth's one line, the gate's countdown).
            return finish(AuthError(.authenticationFailed, retryAfterSeconds: retryAfterSeconds,
                                    detail: "Authentication failed: too many wrong passcodes."))
        }
    }

    private static func times(_ count: Int) -> String { count == 1 ? "once" : "\(count) times" }

    private mutating func finish(_ error: AuthError?, audit: Factor? = nil) -> NextAction {
        state = .finished
        return .finish(error, audit: audit)
    }

    /// Under device-owner a reader that failed, timed out or went away is said before the passcode.
    private func unavailableNotice(_ factor: Factor, _ code: AuthError.Code) -> PromptEvent? {
        guard factor == .biometric, policy == .deviceOwner else { return nil }
        return .factorUnavailable(factor, code)
    }

    /// Which try of `factor` this is, and what Enter and Ctrl-C do at it.
    private func step(_ run: Run, for factor: Factor, attempt: Int) -> PromptStep {
        var step = PromptStep(
            factor: factor, attempt: attempt, tries: triesAllowed(run, factor), reason: run.snapshot.reason,
            user: run.snapshot.record.name, enterTitle: factor == .biometric ? run.snapshot.fallbackTitle : nil,
            cancelTitle: run.snapshot.cancelTitle)
        if factor == .passcode { step.passcodeRequired = run.fingerRefusedBy }
        return step
    }

    private func triesAllowed(_ run: Run, _ factor: Factor) -> Int {
        factor == .biometric ? run.snapshot.configuration.biometricTriesPerEvaluation : run.snapshot.passcodeTries
    }

    /// What is left of `factor` after its `triesMade`-th try of this evaluation was wrong: the
    /// record's failures as the evaluation read them, plus those it counted (another evaluation
    /// running at once may have counted more: the words can only be short of the store's count).
    private func attemptsLeft(_ run: Run, _ factor: Factor, triesMade: Int) -> AttemptsLeft {
        var record = run.snapshot.record
        let lockout = LockoutPolicy(configuration: run.snapshot.configuration)
        let inEvaluation = max(0, triesAllowed(run, factor) - triesMade)
        switch factor {
        case .biometric:
            record.biometricFailures += run.counted[factor, default: 0]
            return AttemptsLeft(inEvaluation: inEvaluation, beforeStop: lockout.biometricAttemptsLeft(failures: record.biometricFailures))
        case .passcode:
            record.passcodeFailures += run.counted[factor, default: 0]
            let next = lockout.passcodeAttemptsBeforeDelay(failures: record.passcodeFailures)
            return AttemptsLeft(inEvaluation: inEvaluation, beforeStop: next?.tries, delaySeconds: next?.delaySeconds)
        }
    }
}
