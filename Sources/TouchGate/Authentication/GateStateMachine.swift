/// The rules of the gate over a locked session, free of I/O: claim the prompt or wait for the
/// terminal that holds it, evaluate, unlock; count down while the passcode is throttled; wait
/// for Enter while no passcode can be checked; and which outcomes end the gate (with which
/// status) and which ask again, with `-S` (scripted) and at a terminal.
///
/// Shaped like ``EvaluationStateMachine``: each input returns the ``Action`` its driver
/// (``Gate``, or ``OfflineGate`` when the store cannot be read) performs.
public struct GateStateMachine: Sendable {
    public enum Action: Sendable, Equatable {
        /// Claim the session's prompt in the store; answer ``promptClaimed()`` or ``promptOwned(by:)``.
        /// A claim held by a process the user cannot reach (a gate in a tmux pane behind a
        /// locked client, a process on no terminal) is taken over, its owner's prompt ended.
        case claimPrompt
        /// Take the session's prompt from its owner, whoever it is (the user pressed Enter at
        /// this gate's wait), ending the owner's prompt; answer ``promptClaimed()``.
        case takeOverPrompt
        /// Say that process `owner` is unlocking the session, wait `milliseconds` (or until Enter
        /// at this gate's terminal), then read the session; answer
        /// ``ownerWaitEnded(sessionLocked:takeOver:)`` (or ``interrupted(_:)``, ``terminalGone()``).
        case waitForOwner(Int32, milliseconds: Int32)
        /// Draw the status with `notice`, then evaluate; answer ``evaluationEnded(_:)``. With
        /// `clearInterruption`, the cancel that ended the last evaluation is forgotten first.
        case evaluate(notice: String?, clearInterruption: Bool)
        /// Unlock the session in the store; answer ``unlocked()``.
        case unlockSession
        /// Show `seconds` left of the passcode's throttling (the notice comes with the next
        /// evaluation), then answer ``tick()`` each second.
        case countDown(seconds: Int)
        /// Redraw the countdown's line with `seconds` left; answer ``tick()`` a second later.
        case redrawCountdown(seconds: Int)
        /// Draw the status with `notice` and wait for Enter; answer ``enterWaitEnded(_:terminalGone:)``.
        case waitForEnter(notice: String?)
        /// Forget the interruption and go on with the wait that was interrupted.
        case resume
        /// The gate is over; with `say`, the line to write on standard error first (`-S`).
        case finish(GateEnd, say: String?)
    }

    private enum State: Equatable {
        case initial
        /// With what the evaluation after the claim shows, and whether it forgets a cancel first.
        case claiming(notice: String?, clearInterruption: Bool)
        case waitingForOwner
        case evaluating
        case unlocking
        case countingDown(remaining: Int)
        case waitingForEnter
        case finished
    }

    /// With `-S`: standard input answers, so an outcome that would ask again at a terminal ends the gate.
    public let scripted: Bool
    /// False for the gate without a store: nothing to claim, nothing to unlock.
    public let claimsPrompt: Bool
    private var state = State.initial
    /// What the next evaluation's status shows.
    private var notice: String?

    /// How long the gate waits between looks at a prompt another process holds.
    public static let ownerPollMilliseconds: Int32 = 300

    public init(scripted: Bool, claimsPrompt: Bool = true) {
        self.scripted = scripted
        self.claimsPrompt = claimsPrompt
    }

    // MARK: - Inputs

    /// The gate starts over a locked session.
    public mutating func start() -> Action {
        guard state == .initial else { preconditionFailure("start twice") }
        if claimsPrompt {
            state = .claiming(notice: nil, clearInterruption: false)
            return .claimPrompt
        }
        state = .evaluating
        return .evaluate(notice: nil, clearInterruption: false)
    }

    /// The prompt is this gate's: no double prompt.
    public mutating func promptClaimed() -> Action {
        guard case .claiming(let notice, let clearInterruption) = state else { preconditionFailure("not claiming") }
        state = .evaluating
        return .evaluate(notice: notice, clearInterruption: clearInterruption)
    }

    /// Another live process prompts for this session: wait for it.
    public mutating func promptOwned(by owner: Int32) -> Action {
        guard case .claiming = state else { preconditionFailure("not claiming") }
        state = .waitingForOwner
        return .waitForOwner(owner, milliseconds: Self.ownerPollMilliseconds)
    }

    /// The wait for the other process is over: it unlocked the session, or the gate claims
    /// again; with `takeOver` (Enter at this gate) it takes the prompt, so the gate in front of
    /// the user can always unlock and never waits for ever for a prompt no one answers.
    public mutating func ownerWaitEnded(sessionLocked: Bool, takeOver: Bool = false) -> Action {
        guard state == .waitingForOwner else { preconditionFailure("not waiting for an owner") }
        if !sessionLocked { return finish(.unlocked) }
        state = .claiming(notice: nil, clearInterruption: false)
        return takeOver ? .takeOverPrompt : .claimPrompt
    }

    /// An evaluation ended: `nil` for success, or its error.
    public mutating func evaluationEnded(_ error: AuthError?, terminalGone: Bool = false) -> Action {
        guard state == .evaluating else { preconditionFailure("not evaluating") }
        guard let error else {
            if !claimsPrompt { return finish(.unlocked) }
            state = .unlocking
            return .unlockSession
        }
        if let end = end(for: error, terminalGone: terminalGone) { return end }
        let cancelled = error.code == .userCancel || error.code == .appCancel
        // A cancel from outside says what sent the session away (its detail), not "cancelled".
        let notice = cancelled
            ? ((error.code == .appCancel ? error.detail : nil).map { "\($0) Type again." }
                ?? "Cancelled; the session stays locked. Type again.")
            : error.message
        if let wait = error.retryAfterSeconds {
            // Shown while the countdown runs; once it ends the prompt is open again, and says so.
            self.notice = "The wait is over: type the passcode."
            state = .countingDown(remaining: wait)
            return .countDown(seconds: wait)
        }
        if claimsPrompt, error.code == .appCancel {
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
    public mutating func unlocked() -> Action {
        guard state == .unlocking else { preconditionFailure("not unlocking") }
        return finish(.unlocked)
    }

    /// A second of the countdown passed.
    public mutating func tick() -> Action {
        guard case .countingDown(let remaining) = state else { preconditionFailure("not counting down") }
        if remaining > 1 {
            state = .countingDown(remaining: remaining - 1)
            return .redrawCountdown(seconds: remaining - 1)
        }
        state = .evaluating
        return .evaluate(notice: notice, clearInterruption: false)
    }

    /// The wait for Enter ended.
    public mutating func enterWaitEnded(_ end: GateEnterWait, terminalGone: Bool = false) -> Action {
        guard state == .waitingForEnter else { preconditionFailure("not waiting for Enter") }
        switch end {
        case .enter:
            break
        case .interrupted(.system):
            return finish(.stopped(AuthError(.systemCancel)))
        case .interrupted(_):
            state = .evaluating
            return .evaluate(notice: nil, clearInterruption: true)
        case .endOfInput:
            if scripted || terminalGone, let end = self.end(for: AuthError(.userCancel), terminalGone: terminalGone) {
                return end
            }
        case .notInteractive:
            return finish(.stopped(AuthError(.notInteractive)))
        }
        state = .evaluating
        return .evaluate(notice: nil, clearInterruption: false)
    }

    /// A signal (or a lifecycle event) arrived during a wait of the gate's own (for another
    /// owner, a countdown): it ends the gate, or is forgotten and the wait goes on.
    public mutating func interrupted(_ interruption: Interruption) -> Action {
        if state == .finished { return .finish(.stopped(AuthError(interruption.code)), say: nil) }
        return end(for: AuthError(interruption.code), terminalGone: false) ?? .resume
    }

    /// The terminal the gate holds is gone: ending is all that is left (the session stays locked).
    public mutating func terminalGone() -> Action {
        finish(.stopped(AuthError(.systemCancel)))
    }

    // MARK: - Rules

    /// The action that ends the gate after `error`, or `nil` when the gate asks again.
    private mutating func end(for error: AuthError, terminalGone: Bool) -> Action? {
        switch error.code {
        case .systemCancel, .notInteractive:
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

    private mutating func finish(_ end: GateEnd) -> Action {
        state = .finished
        guard scripted, case .stopped(let error) = end else { return .finish(end, say: nil) }
        // With -S an outcome that ends the gate is said on standard error, as `auth` says it.
        return .finish(end, say: "touchgate: \(error.message) (\(error.code.name))")
    }
}
