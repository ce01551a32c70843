import Testing
@testable import TouchGate
@testable import TouchGateCore

/// The gate's rules, driven with events alone.
@Suite struct GateStateMachineTests {
    typealias Machine = GateStateMachine

    @Test func aClaimedPromptIsEvaluatedThenUnlocked() {
        var machine = Machine(scripted: false)
        #expect(machine.start() == .claimPrompt)
        #expect(machine.promptClaimed(sessionLocked: true) == .evaluate(notice: nil, clearInterruption: false))
        #expect(machine.evaluationSucceeded() == .unlockSession)
        #expect(machine.unlocked() == .finish(.unlocked, say: nil))
    }

    @Test func anotherOwnerIsWaitedForUntilItUnlocksOrLetsGo() {
        var machine = Machine(scripted: false)
        _ = machine.start()
        #expect(machine.promptOwned(by: 4242) == .waitForOwner(4242, milliseconds: Machine.ownerPollMilliseconds))
        #expect(machine.ownerWaitEnded(sessionLocked: true) == .claimPrompt)
        #expect(machine.promptOwned(by: 4242) == .waitForOwner(4242, milliseconds: Machine.ownerPollMilliseconds))
        #expect(machine.ownerWaitEnded(sessionLocked: false) == .finish(.unlocked, say: nil))

        var released = Machine(scripted: false)
        _ = released.start()
        _ = released.promptOwned(by: 4242)
        _ = released.ownerWaitEnded(sessionLocked: true)
        #expect(released.promptClaimed(sessionLocked: true) == .evaluate(notice: nil, clearInterruption: false))
    }

    /// The owner unlocked the session and let go between this gate's look and its claim: the
    /// claim finds the session unlocked and asks nothing (a second prompt over an unlocked
    /// session would wait for an answer no one gives).
    @Test func aClaimAfterTheOwnerUnlockedAsksNothing() {
        var machine = Machine(scripted: false)
        _ = machine.start()
        _ = machine.promptOwned(by: 4242)
        #expect(machine.ownerWaitEnded(sessionLocked: true) == .claimPrompt)
        #expect(machine.promptClaimed(sessionLocked: false) == .finish(.unlocked, say: nil))

        var first = Machine(scripted: true)
        _ = first.start()
        #expect(first.promptClaimed(sessionLocked: false) == .finish(.unlocked, say: nil))
    }

    /// Enter at a waiting gate takes the prompt over; a gate whose evaluation was cancelled from
    /// outside claims again before it asks, and asks with the notice once the claim is its own.
    @Test func aWaitingGateTakesOverOnEnterAndACancelledOneClaimsAgain() {
        var machine = Machine(scripted: false)
        _ = machine.start()
        _ = machine.promptOwned(by: 4242)
        #expect(machine.ownerWaitEnded(sessionLocked: true, takeOver: true) == .takeOverPrompt)
        #expect(machine.promptClaimed(sessionLocked: true) == .evaluate(notice: nil, clearInterruption: false))
        #expect(machine.evaluationFailed(AuthError(.appCancel)) == .claimPrompt)
        #expect(machine.promptOwned(by: 4343) == .waitForOwner(4343, milliseconds: Machine.ownerPollMilliseconds))
        #expect(machine.ownerWaitEnded(sessionLocked: true) == .claimPrompt)
        #expect(machine.promptClaimed(sessionLocked: true)
            == .evaluate(notice: nil, clearInterruption: false))

        var kept = Machine(scripted: false)
        _ = kept.start()
        _ = kept.promptClaimed(sessionLocked: true)
        #expect(kept.evaluationFailed(AuthError(.appCancel)) == .claimPrompt)
        #expect(kept.promptClaimed(sessionLocked: true)
            == .evaluate(notice: "Cancelled; the session stays locked. Type again.", clearInterruption: true))
        // An unlock by the other terminal while waiting ends the gate, Enter or not.
        var unlocked = Machine(scripted: false)
        _ = unlocked.start()
        _ = unlocked.promptOwned(by: 4242)
        #expect(unlocked.ownerWaitEnded(sessionLocked: false, takeOver: true) == .finish(.unlocked, say: nil))
    }

    /// At a terminal only a system cancel (SIGTERM, SIGHUP) or a missing terminal ends the gate;
    /// with -S every outcome a script cannot fix by typing again ends it, and is said.
    @Test func exitStatusesAtATerminal() {
        func after(_ error: AuthError, terminalGone: Bool = false) -> Machine.EvaluationFailedAction {
            var machine = Machine(scripted: false)
            _ = machine.start()
            _ = machine.promptClaimed(sessionLocked: true)
            return machine.evaluationFailed(error, terminalGone: terminalGone)
        }
        #expect(after(AuthError(.systemCancel)) == .finish(.stopped(AuthError(.systemCancel)), say: nil))
        #expect(after(AuthError(.notInteractive)) == .finish(.stopped(AuthError(.notInteractive)), say: nil))
        #expect(after(AuthError(.userCancel))
            == .evaluate(notice: "Cancelled; the session stays locked. Type again.", clearInterruption: true))
        // Cancelled from outside (perhaps a gate that took the prompt over): claim it again first.
        #expect(after(AuthError(.appCancel)) == .claimPrompt)
        #expect(after(AuthError(.userCancel), terminalGone: true) == .finish(.stopped(AuthError(.systemCancel)), say: nil))
        #expect(after(AuthError(.authenticationFailed))
            == .evaluate(notice: AuthError(.authenticationFailed).message, clearInterruption: false))
        #expect(after(AuthError(.passcodeNotSet)) == .waitForEnter(notice: AuthError(.passcodeNotSet).message))
        #expect(after(AuthError(.authenticationFailed, retryAfterSeconds: 5)) == .countDown(seconds: 5))
    }

    @Test func exitStatusesWithScriptedInput() {
        func after(_ error: AuthError) -> Machine.EvaluationFailedAction {
            var machine = Machine(scripted: true)
            _ = machine.start()
            _ = machine.promptClaimed(sessionLocked: true)
            return machine.evaluationFailed(error)
        }
        for code in [AuthError.Code.userCancel, .appCancel, .systemCancel, .notInteractive, .passcodeNotSet] {
            let error = AuthError(code)
            #expect(after(error) == .finish(.stopped(error), say: "touchgate: \(error.message) (\(code.name))"))
        }
        let throttled = AuthError(.authenticationFailed, retryAfterSeconds: 30)
        guard case .finish(.stopped(throttled), say: _?) = after(throttled) else {
            Issue.record("a throttled -S gate must end"); return
        }
        #expect(after(AuthError(.authenticationFailed))
            == .evaluate(notice: AuthError(.authenticationFailed).message, clearInterruption: false))
    }

    @Test func aThrottledPasscodeCountsDownThenAsksAgainWithTheNotice() {
        var machine = Machine(scripted: false)
        _ = machine.start()
        _ = machine.promptClaimed(sessionLocked: true)
        let error = AuthError(.authenticationFailed, retryAfterSeconds: 3)
        #expect(machine.evaluationFailed(error) == .countDown(seconds: 3))
        #expect(machine.tick(storeWait: 2) == .redrawCountdown(seconds: 2))
        // Ctrl-C during the countdown (a terminal ignores it anyway) is forgotten; SIGTERM ends the gate.
        #expect(machine.interrupted(.user) == .resume)
        // The store's wait, not the countdown's own: a wrong try elsewhere lengthens it.
        #expect(machine.tick(storeWait: 9) == .redrawCountdown(seconds: 9))
        #expect(machine.tick(storeWait: 1) == .redrawCountdown(seconds: 1))
        // Once the wait is over the prompt is open: the notice says so, not the old failure and its delay.
        #expect(machine.tick(storeWait: nil) == .evaluate(notice: "The wait is over: type the passcode.", clearInterruption: false))

        // The count reset elsewhere (a success at another terminal, `touchgate reset`): over at once.
        var reset = Machine(scripted: false)
        _ = reset.start()
        _ = reset.promptClaimed(sessionLocked: true)
        #expect(reset.evaluationFailed(AuthError(.authenticationFailed, retryAfterSeconds: 264)) == .countDown(seconds: 264))
        #expect(reset.tick(storeWait: 263) == .redrawCountdown(seconds: 263))
        #expect(reset.tick(storeWait: nil) == .evaluate(notice: "The wait is over: type the passcode.", clearInterruption: false))

        var terminated = Machine(scripted: false)
        _ = terminated.start()
        _ = terminated.promptClaimed(sessionLocked: true)
        _ = terminated.evaluationFailed(error)
        #expect(terminated.interrupted(.system) == .finish(.stopped(AuthError(.systemCancel)), say: nil))
    }

    @Test func aMissingPasscodeStackWaitsForEnter() {
        var machine = Machine(scripted: false)
        _ = machine.start()
        _ = machine.promptClaimed(sessionLocked: true)
        _ = machine.evaluationFailed(AuthError(.passcodeNotSet))
        #expect(machine.enterWaitEnded(.enter) == .evaluate(notice: nil, clearInterruption: false))
        _ = machine.evaluationFailed(AuthError(.passcodeNotSet))
        #expect(machine.enterWaitEnded(.interrupted(.user)) == .evaluate(notice: nil, clearInterruption: true))
        _ = machine.evaluationFailed(AuthError(.passcodeNotSet))
        #expect(machine.enterWaitEnded(.endOfInput) == .evaluate(notice: nil, clearInterruption: false))
        _ = machine.evaluationFailed(AuthError(.passcodeNotSet))
        #expect(machine.enterWaitEnded(.endOfInput, terminalGone: true) == .finish(.stopped(AuthError(.systemCancel)), say: nil))

        var terminated = Machine(scripted: false)
        _ = terminated.start()
        _ = terminated.promptClaimed(sessionLocked: true)
        _ = terminated.evaluationFailed(AuthError(.passcodeNotSet))
        #expect(terminated.enterWaitEnded(.interrupted(.system)) == .finish(.stopped(AuthError(.systemCancel)), say: nil))
    }

    @Test func aGoneTerminalEndsAnyWait() {
        var machine = Machine(scripted: false)
        _ = machine.start()
        _ = machine.promptOwned(by: 1)
        #expect(machine.terminalGone() == .finish(.stopped(AuthError(.systemCancel)), say: nil))
    }

    /// An interruption once the gate is over only says how it stops: nothing is said again,
    /// even with `-S`, and it never resumes a wait that is over.
    @Test func anInterruptionAfterTheEndStopsSilently() {
        var machine = Machine(scripted: true)
        _ = machine.start()
        #expect(machine.promptClaimed(sessionLocked: false) == .finish(.unlocked, say: nil))
        #expect(machine.interrupted(.user) == .finish(.stopped(AuthError(.userCancel)), say: nil))
        // With -S a gone terminal is said, whatever the state.
        #expect(machine.terminalGone() == .finish(.stopped(AuthError(.systemCancel)),
                                                  say: "touchgate: \(AuthError(.systemCancel).message) (systemCancel)"))
    }

    /// Each input answers only with its own action type: the owner's wait says whether to
    /// claim or take over, the claim's answer whether to evaluate, wait or end.
    @Test func theOwnersWaitAndTheClaimAnswerWithTheirOwnActions() {
        var machine = Machine(scripted: false)
        #expect(machine.start() == .claimPrompt)
        #expect(machine.promptOwned(by: 7) == .waitForOwner(7, milliseconds: Machine.ownerPollMilliseconds))
        #expect(machine.ownerWaitEnded(sessionLocked: true, takeOver: true) == .takeOverPrompt)
        #expect(machine.promptOwned(by: 7) == .waitForOwner(7, milliseconds: Machine.ownerPollMilliseconds))
        #expect(machine.ownerWaitEnded(sessionLocked: true) == .claimPrompt)
        #expect(machine.promptClaimed(sessionLocked: true) == .evaluate(notice: nil, clearInterruption: false))
        #expect(machine.evaluationSucceeded() == .unlockSession)
        #expect(machine.unlocked() == .finish(.unlocked, say: nil))
    }
}
