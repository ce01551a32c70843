import TouchGateCore

/// The rules of the gate over a locked session, free of I/O: claim the prompt or wait for the
/// terminal that holds it, evaluate, unlock; count down while the passcode is throttled; wait
/// for Enter while no passcode can be checked; and which outcomes end the gate (with which
/// status) and which ask again, with `-S` (scripted) and at a terminal.
///
/// Shaped like swift-nio's state machines (``EvaluationStateMachine``): a private `State` whose
/// cases carry their data, and each input returns its own action type, holding only what can
/// follow that input, which its driver (``Gate``, over the store or, when the store cannot be
/// read, over an in-memory ledger) performs.
struct GateStateMachine: Sendable {
    /// What ``start()`` asks: claim the session's prompt in the store; answer
    /// ``promptClaimed(sessionLocked:)`` or ``promptOwned(by:)``. A claim held by a process the user cannot
    /// reach (a gate in a tmux pane behind a locked client, a process on no terminal) is taken
    /// over, its owner's prompt ended.
    enum StartAction: Sendable, Equatable {
        case claimPrompt
    }

    /// What a claim's answer (``promptClaimed(sessionLocked:)``, ``promptOwned(by:)``) asks.
    enum ClaimAction: Sendable, Equatable {
        /// Draw the status with `notice`, then evaluate; answer ``evaluationSucceeded()`` or ``evaluationFailed(_:terminalGone:)``.
        /// With `clearInterruption`, the cancel that ended the last evaluation is forgotten first.
        case evaluate(notice: String?, clearInterruption: Bool)
        /// Say that process `owner` is unlocking the session, wait `milliseconds` (or until Enter
        /// at this gate's terminal), then read the session; answer
        /// ``ownerWaitEnded(sessionLocked:takeOver:)`` (or ``interrupted(_:)``, ``terminalGone()``).
        case waitForOwner(Int32, milliseconds: Int32)
        /// The gate is over: the session was unlocked by another process before this gate's
        /// claim (only from ``promptClaimed(sessionLocked:)``).
        case finish(GateEnd, say: String?)
    }

    /// What ``ownerWaitEnded(sessionLocked:takeOver:)`` asks.
    enum OwnerWaitAction: Sendable, Equatable {
        /// Claim the prompt again (see ``StartAction/claimPrompt``).
        case claimPrompt
        /// Take the session's prompt from its owner, whoever it is (the user pressed Enter at
        /// this gate's wait), ending the owner's prompt; answer ``promptClaimed(sessionLocked:)``.
        case takeOverPrompt
        /// The gate is over (the other process unlocked the session).
        case finish(GateEnd, say: String?)
    }

    /// What ``evaluationSucceeded()`` asks: unlock the session with the evaluation's
    /// ``EvaluationSuccess``; answer ``unlocked()``.
    enum EvaluationSucceededAction: Sendable, Equatable {
        case unlockSession
    }

    /// What ``evaluationFailed(_:terminalGone:)`` asks.
    enum EvaluationFailedAction: Sendable, Equatable {
        /// Show `seconds` left of the passcode's throttling (the notice comes with the next
        /// evaluation), then answer ``tick(storeWait:)`` each second with the wait the store says then.
        case countDown(seconds: Int)
        /// Claim the prompt again before asking (cancelled from outside: perhaps another gate
        /// took it over); answer ``promptClaimed(sessionLocked:)`` or ``promptOwned(by:)``.
        case claimPrompt
        /// Draw the status with `notice` and wait for Enter; answer ``enterWaitEnded(_:terminalGone:)``.
        case waitForEnter(notice: String?)
        /// Evaluate again (see ``ClaimAction/evaluate(notice:clearInterruption:)``).
        case evaluate(notice: String?, clearInterruption: Bool)
        /// The gate is over; with `say`, the line to write on standard error first (`-S`).
        case finish(GateEnd, say: String?)
    }

    /// What ``unlocked()`` asks: the gate is over, unlocked.
    enum UnlockedAction: Sendable, Equatable {
        case finish(GateEnd, say: String?)
    }

    /// What ``tick(storeWait:)`` asks.
    enum TickAction: Sendable, Equatable {
        /// Redraw the countdown's line with `seconds` left; answer ``tick(storeWait:)`` a second later.
        case redrawCountdown(seconds: Int)
        /// The wait is over: evaluate (see ``ClaimAction/evaluate(notice:clearInterruption:)``).
        case evaluate(notice: String?, clearInterruption: Bool)
    }

    /// What ``enterWaitEnded(_:terminalGone:)`` asks.
    enum EnterWaitAction: Sendable, Equatable {
        case evaluate(notice: String?, clearInterruption: Bool)
        case finish(GateEnd, say: String?)
    }

    /// What ``interrupted(_:)`` asks.
    enum InterruptedAction: Sendable, Equatable {
        /// Forget the interruption and go on with the wait that was interrupted.
        case resume
        case finish(GateEnd, say: String?)
    }

    /// What ``terminalGone()`` asks: the gate is over, the session still locked.
    enum TerminalGoneAction: Sendable, Equatable {
        case finish(GateEnd, say: String?)
    }

    private enum State: Equatable {
        case initial
        /// With what the evaluation after the claim shows, and whether it forgets a cancel first.
        case claiming(notice: String?, clearInterruption: Bool)
        case waitingForOwner
        case evaluating
        case unlocking
        /// `notice`: what the evaluation after the countdown shows.
        case countingDown(remaining: Int, notice: String)
        case waitingForEnter
        case finished
    }

    /// With `-S`: standard input answers, so an outcome that would ask again at a terminal ends the gate.
    let scripted: Bool
    private var state = State.initial

    /// How long the gate waits between looks at a prompt another process holds.
    static let ownerPollMilliseconds: Int32 = 300

    /// Ctrl-C (userCancel) ends the gate instead of clearing the line: `touchgate shell`'s first
    /// gate, before its program shows anything, so the user can leave a login they did not mean.
    let cancelable: Bool

    init(scripted: Bool, cancelable: Bool = false) {
        self.scripted = scripted
        self.cancelable = cancelable
    }

    // MARK: - Inputs
    //
    // Each input switches over every state: the states it is valid in decide, the others are a
    // driver's bug (swift-nio's `preconditionFailure` in the arm, never a `default:`).

    /// The gate starts over a locked session.
    mutating func start() -> StartAction {
        switch state {
        case .initial:
            state = .claiming(notice: nil, clearInterruption: false)
            return .claimPrompt
        case .claiming, .waitingForOwner, .evaluating, .unlocking, .countingDown, .waitingForEnter, .finished:
            preconditionFailure("start twice")
        }
    }

    /// The prompt is this gate's: no double prompt. `sessionLocked` is the session as read once
    /// the claim is held: the gate that held it before may have unlocked it after this gate last
    /// looked (between ``ownerWaitEnded(sessionLocked:takeOver:)`` and the claim), and then
    /// nothing is asked.
    mutating func promptClaimed(sessionLocked: Bool) -> ClaimAction {
        switch state {
        case .claiming(let notice, let clearInterruption):
            if !sessionLocked {
                let (end, say) = finish(.unlocked)
                return .finish(end, say: say)
            }
            state = .evaluating
            return .evaluate(notice: notice, clearInterruption: clearInterruption)
        case .initial, .waitingForOwner, .evaluating, .unlocking, .countingDown, .waitingForEnter, .finished:
            preconditionFailure("not claiming")
        }
    }

    /// Another live process prompts for this session: wait for it.
    mutating func promptOwned(by owner: Int32) -> ClaimAction {
        switch state {
        case .claiming:
            state = .waitingForOwner
            return .waitForOwner(owner, milliseconds: Self.ownerPollMilliseconds)
        case .initial, .waitingForOwner, .evaluating, .unlocking, .countingDown, .waitingForEnter, .finished:
            preconditionFailure("not claiming")
        }
    }

    /// The wait for the other process is over: it unlocked the session, or the gate claims
    /// again; with `takeOver` (Enter at this gate) it takes the prompt, so the gate in front of
    /// the user can always unlock and never waits for ever for a prompt no one answers.
    mutating func ownerWaitEnded(sessionLocked: Bool, takeOver: Bool = false) -> OwnerWaitAction {
        switch state {
        case .waitingForOwner:
            if !sessionLocked {
                let (end, say) = finish(.unlocked)
                return .finish(end, say: say)
            }
            state = .claiming(notice: nil, clearInterruption: false)
            return takeOver ? .takeOverPrompt : .claimPrompt
        case .initial, .claiming, .evaluating, .unlocking, .countingDown, .waitingForEnter, .finished:
            preconditionFailure("not waiting for an owner")
        }
    }

    /// The evaluation succeeded.
    mutating func evaluationSucceeded() -> EvaluationSucceededAction {
        switch state {
        case .evaluating:
            state = .unlocking
            return .unlockSession
        case .initial, .claiming, .waitingForOwner, .unlocking, .countingDown, .waitingForEnter, .finished:
            preconditionFailure("not evaluating")
        }
    }

    /// The evaluation ended with `error`; `terminalGone`: the terminal the gate holds is gone.
    mutating func evaluationFailed(_ error: AuthError, terminalGone: Bool = false) -> EvaluationFailedAction {
        switch state {
        case .evaluating:
            break
        case .initial, .claiming, .waitingForOwner, .unlocking, .countingDown, .waitingForEnter, .finished:
            preconditionFailure("not evaluating")
        }
        if let (end, say) = end(for: error, terminalGone: terminalGone) { return .finish(end, say: say) }
        let cancelled = error.code == .userCancel || error.code == .appCancel
        // A cancel from outside says what sent the session away (its detail), not "cancelled".
        let notice = cancelled
            ? ((error.code == .appCancel ? error.detail : nil).map { "\($0) Type again." }
                ?? "Cancelled; the session stays locked. Type again.")
            : error.message
        if let wait = error.retryAfterSeconds {
            // Shown while the countdown runs; once it ends the prompt is open again, and says so.
            state = .countingDown(remaining: wait, notice: "The wait is over: type the passcode.")
            return .countDown(seconds: wait)
        }
        if error.code == .appCancel {
            // Cancelled from outside: perhaps another gate took the prompt over. Claim it again
            // (still this gate's: ask again; taken: wait for the one that holds it).
            state = .claiming(notice: notice, clearInterruption: true)
            return .claimPrompt
        }
        if error.code == .passcodeNotSet {
            // Nothing can unlock until an administrator fixes the stack: say why, and look again
            // when asked to.
            state = .waitingForEnter
            return .waitForEnter(notice: notice)
        }
        return .evaluate(notice: notice, clearInterruption: cancelled)
    }

    /// The session is unlocked in the store.
    mutating func unlocked() -> UnlockedAction {
        switch state {
        case .unlocking:
            let (end, say) = finish(.unlocked)
            return .finish(end, say: say)
        case .initial, .claiming, .waitingForOwner, .evaluating, .countingDown, .waitingForEnter, .finished:
            preconditionFailure("not unlocking")
        }
    }

    /// A second of the countdown passed; `storeWait` is the wait the store says now (`nil`: the
    /// passcode may be tried).
    ///
    /// The countdown follows the store, not its own first number: a count reset elsewhere (a
    /// success at another terminal, `touchgate reset`) or a changed `passcode-delays` ends or
    /// shortens it at the next second, and a wrong try elsewhere lengthens it.
    mutating func tick(storeWait: Int?) -> TickAction {
        switch state {
        case .countingDown(_, let notice):
            if let remaining = storeWait, remaining > 0 {
                state = .countingDown(remaining: remaining, notice: notice)
                return .redrawCountdown(seconds: remaining)
            }
            state = .evaluating
            return .evaluate(notice: notice, clearInterruption: false)
        case .initial, .claiming, .waitingForOwner, .evaluating, .unlocking, .waitingForEnter, .finished:
            preconditionFailure("not counting down")
        }
    }

    /// The wait for Enter ended.
    mutating func enterWaitEnded(_ end: GateEnterWait, terminalGone: Bool = false) -> EnterWaitAction {
        switch state {
        case .waitingForEnter:
            break
        case .initial, .claiming, .waitingForOwner, .evaluating, .unlocking, .countingDown, .finished:
            preconditionFailure("not waiting for Enter")
        }
        func finished(_ gateEnd: GateEnd) -> EnterWaitAction {
            let (gateEnd, say) = finish(gateEnd)
            return .finish(gateEnd, say: say)
        }
        switch end {
        case .enter:
            break
        case .interrupted(.system):
            return finished(.stopped(AuthError(.systemCancel)))
        case .interrupted(.user) where cancelable:
            return finished(.stopped(AuthError(.userCancel)))
        case .interrupted(_):
            state = .evaluating
            return .evaluate(notice: nil, clearInterruption: true)
        case .endOfInput:
            if scripted || terminalGone, let (gateEnd, say) = self.end(for: AuthError(.userCancel), terminalGone: terminalGone) {
                return .finish(gateEnd, say: say)
            }
        case .notInteractive:
            return finished(.stopped(AuthError(.notInteractive)))
        }
        state = .evaluating
        return .evaluate(notice: nil, clearInterruption: false)
    }

    /// A signal (or a lifecycle event) arrived during a wait of the gate's own (for another
    /// owner, a countdown): it ends the gate, or is forgotten and the wait goes on.
    mutating func interrupted(_ interruption: Interruption) -> InterruptedAction {
        switch state {
        case .finished:
            return .finish(.stopped(AuthError(interruption.code)), say: nil)
        case .initial, .claiming, .waitingForOwner, .evaluating, .unlocking, .countingDown, .waitingForEnter:
            guard let (end, say) = end(for: AuthError(interruption.code), terminalGone: false) else { return .resume }
            return .finish(end, say: say)
        }
    }

    /// The terminal the gate holds is gone: ending is all that is left (the session stays locked).
    mutating func terminalGone() -> TerminalGoneAction {
        switch state {
        case .initial, .claiming, .waitingForOwner, .evaluating, .unlocking, .countingDown, .waitingForEnter, .finished:
            let (end, say) = finish(.stopped(AuthError(.systemCancel)))
            return .finish(end, say: say)
        }
    }

    // MARK: - Rules

    /// How the gate ends after `error` (and the line said with `-S`), or `nil` when it asks again.
    private mutating func end(for error: AuthError, terminalGone: Bool) -> (GateEnd, String?)? {
        switch error.code {
        case .systemCancel, .notInteractive:
            return finish(.stopped(error))
        case .userCancel where cancelable:
            return finish(.stopped(error))
        case .userCancel, .appCancel:
            if scripted { return finish(.stopped(error)) }
            // End of input from a terminal that hung up would otherwise be asked again forever.
            if terminalGone { return finish(.stopped(AuthError(.systemCancel))) }
            return nil
        case .passcodeNotSet where scripted:
            return finish(.stopped(error))
        default:
            if scripted, error.retryAfterSeconds != nil { return finish(.stopped(error)) }
            return nil
        }
    }

    private mutating func finish(_ end: GateEnd) -> (GateEnd, String?) {
        state = .finished
        guard scripted, case .stopped(let error) = end else { return (end, nil) }
        // With -S an outcome that ends the gate is said on standard error, as `auth` says it.
        return (end, "touchgate: \(error.message) (\(error.code.name))")
    }
}
