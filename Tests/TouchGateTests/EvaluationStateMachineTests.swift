import Testing
@testable import TouchGate
@testable import TouchGateCore

/// The evaluation's rules, driven with events alone: no store, no PAM, no terminal.
@Suite struct EvaluationStateMachineTests {
    typealias Machine = EvaluationStateMachine

    static func snapshot(enrolled: Bool = true, biometricFailures: Int = 0, remoteHost: String? = nil,
                         passcodeMissing: String? = nil, tries: Int = 3) -> Machine.Snapshot {
        var record = UserRecord(name: "alice")
        record.enrolled = enrolled
        record.biometricFailures = biometricFailures
        var configuration = Configuration()
        configuration.biometricTriesPerEvaluation = tries
        return Machine.Snapshot(record: record, configuration: configuration, remoteHost: remoteHost,
                                passcodeStackMissing: passcodeMissing, reason: "test")
    }

    static func result(_ outcome: PAMOutcome, submitted: Bool = true) -> CredentialCheckResult {
        CredentialCheckResult(outcome: outcome, submittedAnswer: submitted)
    }

    /// The passcode's `attempt`-th try, as touchgate's own prompt is told it.
    static func passcode(_ attempt: Int, user: String = "alice") -> Machine.NextAction {
        .ask(PromptStep(factor: .passcode, attempt: attempt, tries: 3, reason: "test", user: user,
                        enterTitle: nil, cancelTitle: "Cancel"))
    }

    static var timeout: CredentialCheckResult { result(.unavailable, submitted: false) }

    static var fallback: CredentialCheckResult {
        var result = result(.failed(19), submitted: false)
        result.fallbackChosen = true
        return result
    }

    @Test func aGoodScanSucceeds() {
        var machine = Machine(mode: .policy(.deviceOwner))
        #expect(machine.start(Self.snapshot()) == .admit(.biometric))
        guard case .check(.biometric(typedLineIsPasscode: true), attempt: 1, step: let step?) = machine.admitted(1) else {
            Issue.record("no biometric check"); return
        }
        #expect(step.reason == "test" && step.factor == .biometric && step.attempt == 1 && step.tries == 3)
        #expect(machine.checkEnded(Self.result(.success, submitted: false))
            == .settle(attempt: 1, factor: .biometric, result: .success, notice: nil))
        #expect(machine.settled() == .finish(nil, audit: nil))
    }

    @Test func aBadScanIsCountedSaidAndTriedAgainAsTheSecondTry() {
        var machine = Machine(mode: .policy(.biometrics))
        _ = machine.start(Self.snapshot())
        _ = machine.admitted(1)
        #expect(machine.checkEnded(Self.result(.noMatch, submitted: false))
            == .settle(attempt: 1, factor: .biometric, result: .failure(.authenticationFailed),
                       notice: .tryFailed(.biometric, AttemptsLeft(inEvaluation: 2, beforeStop: 4))))
        #expect(machine.settled() == .admit(.biometric))
        guard case .check(.biometric(typedLineIsPasscode: false), attempt: 2, step: let step?) = machine.admitted(2) else {
            Issue.record("no second check"); return
        }
        #expect(step.attempt == 2 && step.enterTitle == "Use Passcode" && step.cancelTitle == "Cancel")
    }

    @Test func aTimeoutIsTakenBackAndDeviceOwnerGoesToThePasscodeSayingWhy() {
        var machine = Machine(mode: .policy(.deviceOwner))
        _ = machine.start(Self.snapshot())
        _ = machine.admitted(1)
        guard case .settle(attempt: 1, factor: .biometric, result: .notChecked(.biometryNotAvailable), notice: let notice?)
            = machine.checkEnded(Self.timeout) else { Issue.record("not taken back"); return }
        #expect(notice == .factorUnavailable(.biometric, .biometryNotAvailable))
        #expect(machine.settled() == Self.passcode(1))
    }

    @Test func aTimeoutUnderBiometricsEndsTheEvaluation() {
        var machine = Machine(mode: .policy(.biometrics))
        _ = machine.start(Self.snapshot())
        _ = machine.admitted(1)
        #expect(machine.checkEnded(Self.timeout)
            == .settle(attempt: 1, factor: .biometric, result: .notChecked(.biometryNotAvailable), notice: nil))
        #expect(machine.settled() == .finish(AuthError(.biometryNotAvailable), audit: nil))
    }

    @Test func enterDuringTheWaitIsTheFallback() {
        var deviceOwner = Machine(mode: .policy(.deviceOwner))
        _ = deviceOwner.start(Self.snapshot())
        _ = deviceOwner.admitted(1)
        #expect(deviceOwner.checkEnded(Self.fallback)
            == .settle(attempt: 1, factor: .biometric, result: .notChecked(.userFallback), notice: nil))
        // touchgate's own prompt first, told which try it is; the check then tells nothing again.
        #expect(deviceOwner.settled() == Self.passcode(1))
        #expect(deviceOwner.answered(.submitted) == .admit(.passcode))
        #expect(deviceOwner.admitted(2) == .check(.passcode, attempt: 2, step: nil))

        var biometrics = Machine(mode: .policy(.biometrics))
        _ = biometrics.start(Self.snapshot())
        _ = biometrics.admitted(1)
        _ = biometrics.checkEnded(Self.fallback)
        #expect(biometrics.settled() == .finish(AuthError(.userFallback), audit: nil))
    }

    /// A line typed during the wait: under device-owner it is kept for the passcode prompt
    /// (which then reads it), under biometrics-only it is never a passcode.
    @Test func aPasscodeTypedDuringTheWaitDependsOnThePolicy() {
        var deviceOwner = Machine(mode: .policy(.deviceOwner))
        _ = deviceOwner.start(Self.snapshot())
        guard case .check(.biometric(typedLineIsPasscode: true), attempt: 1, step: let step?) = deviceOwner.admitted(1) else {
            Issue.record("no biometric check"); return
        }
        #expect(step.enterTitle == "Use Passcode" && step.cancelTitle == "Cancel")
        _ = deviceOwner.checkEnded(Self.fallback)
        #expect(deviceOwner.settled() == Self.passcode(1))
        _ = deviceOwner.answered(.submitted)
        _ = deviceOwner.admitted(2)
        #expect(deviceOwner.checkEnded(Self.result(.success)) == .settle(attempt: 2, factor: .passcode, result: .success, notice: nil))
        #expect(deviceOwner.settled() == .finish(nil, audit: nil))

        var biometrics = Machine(mode: .policy(.biometrics))
        _ = biometrics.start(Self.snapshot())
        guard case .check(.biometric(typedLineIsPasscode: false), _, _) = biometrics.admitted(1) else {
            Issue.record("typed text must not be a passcode under biometrics"); return
        }
        _ = biometrics.checkEnded(Self.fallback)
        #expect(biometrics.settled() == .finish(AuthError(.userFallback), audit: nil))

        var enrollment = Machine(mode: .enrollment)
        _ = enrollment.start(Self.snapshot(enrolled: false))
        _ = enrollment.answered(.submitted)
        _ = enrollment.admitted(1)
        _ = enrollment.checkEnded(Self.result(.success))
        #expect(enrollment.settled() == .admit(.biometric))
        guard case .check(.biometric(typedLineIsPasscode: false), _, _) = enrollment.admitted(2) else {
            Issue.record("enrollment never takes a typed passcode"); return
        }
    }

    /// The store says the lockout: the machine asks it for every try, and the try that finds
    /// the factor locked out ends the biometric part.
    @Test func lockoutAfterExactlyMaxFailures() {
        let configuration = Configuration()
        var machine = Machine(mode: .policy(.biometrics))
        var snapshot = Self.snapshot(tries: 10)
        snapshot.configuration.biometricTriesPerEvaluation = configuration.maxBiometricFailures + 1
        #expect(machine.start(snapshot) == .admit(.biometric))
        for attempt in 1...Int64(configuration.maxBiometricFailures) {
            _ = machine.admitted(attempt)
            _ = machine.checkEnded(Self.result(.noMatch, submitted: false))
            #expect(machine.settled() == .admit(.biometric))
        }
        #expect(machine.lockedOut() == .finish(AuthError(.biometryLockout, passcodeRequired: .failures), audit: nil))

        // Started over a record at the limit: the store is still asked (it writes the audit entry).
        var locked = Machine(mode: .policy(.deviceOwner))
        #expect(locked.start(Self.snapshot(biometricFailures: configuration.maxBiometricFailures)) == .admit(.biometric))
        #expect(locked.lockedOut() == Self.passcode(1))
        #expect(EvaluationStateMachine.biometricAvailability(
            record: { var r = UserRecord(name: "a"); r.enrolled = true; r.biometricFailures = 5; return r }(),
            configuration: configuration, remoteHost: nil, stackExists: true) == .biometryLockout)
        #expect(EvaluationStateMachine.biometricAvailability(
            record: { var r = UserRecord(name: "a"); r.enrolled = true; r.biometricFailures = 4; return r }(),
            configuration: configuration, remoteHost: nil, stackExists: true) == nil)
    }

    @Test func thePasscodeTriesRunOutThenItIsThrottled() {
        var machine = Machine(mode: .passcodeOnly)
        #expect(machine.start(Self.snapshot()) == Self.passcode(1))
        for attempt in 1...3 as ClosedRange<Int64> {
            #expect(machine.answered(.submitted) == .admit(.passcode))
            _ = machine.admitted(attempt)
            // Each wrong one is said with what is left: of this evaluation, and before the first
            // delay of the default passcode-delays (after the 5th failure).
            #expect(machine.checkEnded(Self.result(.noMatch)) == .settle(
                attempt: attempt, factor: .passcode, result: .failure(.authenticationFailed),
                notice: .tryFailed(.passcode, AttemptsLeft(inEvaluation: 3 - Int(attempt), beforeStop: 5 - Int(attempt),
                                                           delaySeconds: 60))))
            let next = machine.settled()
            #expect(next == (attempt < 3 ? Self.passcode(Int(attempt) + 1) : .finish(
                AuthError(.authenticationFailed, detail: "Authentication failed: the passcode was wrong 3 times."), audit: nil)))
        }
        // Throttled before the prompt opens: nothing is asked, nothing counted.
        var throttled = Machine(mode: .passcodeOnly)
        _ = throttled.start(Self.snapshot())
        #expect(throttled.throttled(retryAfterSeconds: 30)
            == .finish(AuthError(.authenticationFailed, retryAfterSeconds: 30,
                                 detail: "Authentication failed: too many wrong passcodes."), audit: nil))
    }

    @Test func ctrlCAtAPromptCancelsAndOnlyASubmittedSecretCounts() {
        // At touchgate's own prompt: nothing was admitted, so nothing is settled; the log says it.
        var machine = Machine(mode: .passcodeOnly)
        _ = machine.start(Self.snapshot())
        #expect(machine.answered(.interrupted(.user)) == .finish(AuthError(.userCancel), audit: .passcode))

        // At a later prompt of the admitted try's stack (a code after the password): the try was
        // made, and stays counted.
        var second = Machine(mode: .passcodeOnly)
        _ = second.start(Self.snapshot())
        _ = second.answered(.submitted)
        _ = second.admitted(1)
        var cancelled = Self.result(.failed(19), submitted: true)
        cancelled.interruption = .user
        #expect(second.checkEnded(cancelled) == .settle(attempt: 1, factor: .passcode, result: .failure(.userCancel), notice: nil))
        #expect(second.settled() == .finish(AuthError(.userCancel), audit: nil))

        var late = Machine(mode: .passcodeOnly)
        _ = late.start(Self.snapshot())
        _ = late.answered(.submitted)
        _ = late.admitted(1)
        // A signal that arrived while the module checked a given secret: counted, and a success is not one.
        #expect(late.interrupted(.system) == .cancelCheck(.system))
        #expect(late.checkEnded(Self.result(.success)) == .settle(attempt: 1, factor: .passcode, result: .verifiedButCancelled(.systemCancel), notice: nil))
        #expect(late.settled() == .finish(AuthError(.systemCancel), audit: nil))
    }

    /// `did-enter-background` (or `invalidate()`) during a wait for the sensor: the worker is
    /// cancelled at once, the try taken back, the evaluation ends with appCancel.
    @Test func backgroundDuringABiometricWaitCancelsTheWorker() {
        var machine = Machine(mode: .policy(.deviceOwner))
        _ = machine.start(Self.snapshot())
        _ = machine.admitted(1)
        #expect(machine.interrupted(.application) == .cancelCheck(.application))
        #expect(machine.interrupted(.application) == .endsAtNextStep)
        // The worker was killed: it reports nothing checked.
        #expect(machine.checkEnded(Self.result(.failed(26), submitted: false))
            == .settle(attempt: 1, factor: .biometric, result: .notChecked(.appCancel), notice: nil))
        #expect(machine.settled() == .finish(AuthError(.appCancel), audit: nil))
    }

    @Test func anInterruptionBetweenStepsEndsAtTheNextStep() {
        var admitting = Machine(mode: .policy(.deviceOwner))
        _ = admitting.start(Self.snapshot())
        #expect(admitting.interrupted(.application) == .endsAtNextStep)
        #expect(admitting.admitted(7) == .settle(attempt: 7, factor: .biometric, result: .notChecked(.appCancel), notice: nil))
        #expect(admitting.settled() == .finish(AuthError(.appCancel), audit: nil))

        var settling = Machine(mode: .policy(.deviceOwner))
        _ = settling.start(Self.snapshot())
        _ = settling.admitted(1)
        _ = settling.checkEnded(Self.result(.noMatch, submitted: false))
        #expect(settling.interrupted(.user) == .endsAtNextStep)
        #expect(settling.settled() == .finish(AuthError(.userCancel), audit: nil))

        var succeeded = Machine(mode: .policy(.deviceOwner))
        _ = succeeded.start(Self.snapshot())
        _ = succeeded.admitted(1)
        _ = succeeded.checkEnded(Self.result(.success, submitted: false))
        #expect(succeeded.interrupted(.application) == .endsAtNextStep)
        #expect(succeeded.settled() == .finish(nil, audit: nil))

        var early = Machine(mode: .policy(.deviceOwner))
        #expect(early.interrupted(.application) == .endsAtNextStep)
        #expect(early.start(Self.snapshot()) == .finish(AuthError(.appCancel), audit: nil))
    }

    @Test func unavailableBiometricsAndRemoteSessions() {
        var remote = Machine(mode: .policy(.deviceOwner))
        #expect(remote.start(Self.snapshot(remoteHost: "10.0.0.1")) == Self.passcode(1))

        var remoteBiometrics = Machine(mode: .policy(.biometrics))
        guard case .finish(let error?, audit: .biometric) = remoteBiometrics.start(Self.snapshot(remoteHost: "10.0.0.1")) else {
            Issue.record("no audited end"); return
        }
        #expect(error.code == .biometryNotAvailable)
        #expect(error.detail?.contains("10.0.0.1") == true)

        var notEnrolled = Machine(mode: .policy(.biometrics))
        #expect(notEnrolled.start(Self.snapshot(enrolled: false)) == .finish(AuthError(.biometryNotEnrolled), audit: .biometric))

        var noPasscode = Machine(mode: .policy(.deviceOwner))
        #expect(noPasscode.start(Self.snapshot(enrolled: false, passcodeMissing: "gone"))
            == .finish(AuthError(.passcodeNotSet, detail: "gone"), audit: .passcode))
    }

    @Test func aPasscodeStackThatTakesNoSecretNeverUnlocks() {
        var machine = Machine(mode: .passcodeOnly)
        _ = machine.start(Self.snapshot())
        _ = machine.answered(.submitted)
        _ = machine.admitted(1)
        #expect(machine.checkEnded(Self.result(.success, submitted: false))
            == .settle(attempt: 1, factor: .passcode, result: .notChecked(.passcodeNotSet), notice: nil))
        #expect(machine.settled() == .finish(AuthError(.passcodeNotSet), audit: nil))
    }

    @Test func anUnknownStatusIsACountedFailure() {
        var machine = Machine(mode: .policy(.biometrics))
        _ = machine.start(Self.snapshot(tries: 1))
        _ = machine.admitted(1)
        #expect(machine.checkEnded(Self.result(.failed(4), submitted: false))
            == .settle(attempt: 1, factor: .biometric, result: .failure(.authenticationFailed),
                       notice: .tryFailed(.biometric, AttemptsLeft(inEvaluation: 0, beforeStop: 4))))
        #expect(machine.settled() == .finish(
            AuthError(.authenticationFailed, detail: "Authentication failed: the biometric factor did not match once."), audit: nil))
    }

    /// A prompt that is only open counts nothing: closed, hung up or ended without an answer,
    /// the evaluation ends with nothing admitted; an interruption while it is open wakes it, and
    /// decides even over an answer submitted at the same moment.
    @Test func aPasscodePromptLeftWithoutAnAnswerAdmitsNothing() {
        for (end, code) in [(Machine.PromptEnd.endOfInput, AuthError.Code.userCancel),
                            (.interrupted(.system), .systemCancel), (.notInteractive, .notInteractive)] {
            var machine = Machine(mode: .passcodeOnly)
            #expect(machine.start(Self.snapshot()) == Self.passcode(1))
            guard case .finish(let error?, audit: .passcode) = machine.answered(end) else {
                Issue.record("\(end) must end the evaluation without an admission"); continue
            }
            #expect(error.code == code)
        }

        var woken = Machine(mode: .policy(.deviceOwner))
        #expect(woken.start(Self.snapshot(enrolled: false)) == Self.passcode(1))
        #expect(woken.interrupted(.application) == .cancelCheck(.application))
        #expect(woken.interrupted(.user) == .endsAtNextStep)
        #expect(woken.answered(.submitted) == .finish(AuthError(.appCancel), audit: .passcode))

        // The second try is asked again at touchgate's own prompt, and only its answer is admitted.
        var again = Machine(mode: .passcodeOnly)
        _ = again.start(Self.snapshot())
        _ = again.answered(.submitted)
        _ = again.admitted(1)
        _ = again.checkEnded(Self.result(.noMatch))
        #expect(again.settled() == Self.passcode(2))
        #expect(again.answered(.endOfInput) == .finish(
            AuthError(.userCancel, detail: "The input ended before an answer (end of input)."), audit: .passcode))
    }
}
