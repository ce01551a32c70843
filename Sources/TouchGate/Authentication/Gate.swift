import Glibc
import TouchGateCore
import TouchGateStore

/// The gate over one locked session: drives a ``GateStateMachine`` with its ledger (the
/// prompt's claim, the unlock: the store's, or when the store cannot be read an
/// ``OfflineLedger``'s, which claims and unlocks nothing) and the context's evaluations, and a
/// ``GateScreen`` for the rest. Nothing else steps the machine.
package final class Gate {
    let ledger: any AttemptLedger
    package let session: String
    package let context: AuthContext
    let scripted: Bool
    /// The reason each evaluation shows; the CLI names the session as the user knows it.
    package var reason: String
    /// What this gate claims the prompt as.
    package let kind: PromptClaimKind
    /// Ctrl-C ends the gate (userCancel) instead of clearing the line (``GateStateMachine/cancelable``).
    package var cancelable = false
    let processes: any ProcessProbe

    /// - Parameter context: evaluates device-owner for the session's user in `store`; its
    ///   interrupter is the one the screen's signals post to.
    /// - Parameter kind: ``PromptClaimKind/tmuxPane`` for a gate in a tmux pane's shell, which
    ///   the tmux client's own gate takes over.
    package convenience init(
        store: Store, session: String, context: AuthContext, scripted: Bool, kind: PromptClaimKind = .gate,
        processes: any ProcessProbe = SystemProcessProbe()
    ) {
        self.init(ledger: store, session: session, context: context, scripted: scripted, kind: kind, processes: processes)
    }

    /// A gate over `ledger`, which `context` counts in too.
    init(ledger: any AttemptLedger, session: String, context: AuthContext, scripted: Bool, kind: PromptClaimKind,
         processes: any ProcessProbe) {
        self.ledger = ledger
        self.session = session
        self.context = context
        self.scripted = scripted
        self.reason = "unlock session \(session.escapedForMessage)"
        self.kind = kind
        self.processes = processes
    }

    private var user: String { context.user }

    /// Runs the gate to its end; throws a ``StoreError`` when the store fails meanwhile (the
    /// caller goes on offline: the gate still opens only for the passcode).
    ///
    /// The driver switches on each action of the machine where the input that returned it was
    /// given, and carries it out there; every path back to an earlier step is one of two: claim
    /// the prompt again (the `claiming` loop) or evaluate again (the `evaluating` loop).
    package func run(on screen: any GateScreen) throws -> GateEnd {
        var machine = GateStateMachine(scripted: scripted, cancelable: cancelable)
        let hold = PromptHold(ledger: ledger, session: session, user: user, kind: kind, probe: processes)
        defer { hold.release() }
        func ended(_ end: GateEnd, say: String?) -> GateEnd {
            if let say { screen.say(say) }
            return end
        }
        var takeOver: Bool
        switch machine.start() {
        case .claimPrompt: takeOver = false
        }
        claiming: while true {
            // A live owner taken over has its prompt ended (appCancel); it claims again and
            // finds this gate's claim.
            let forced = takeOver
            let claim = try hold.claim { [kind, processes] owner, ownerKind in
                forced || PromptTakeover.takesOver(from: owner, kind: ownerKind, as: kind, processes: processes)
            }
            let claimed: GateStateMachine.ClaimAction = switch claim {
            case .heldBy(let owner): machine.promptOwned(by: owner.pid)
            case .tookOver, .claimed: machine.promptClaimed(sessionLocked: try ledger.sessionIsLocked(session))
            }
            var notice: String?, clearInterruption: Bool
            switch claimed {
            case .evaluate(let next, let clear):
                (notice, clearInterruption) = (next, clear)
            case .finish(let end, let say):
                return ended(end, say: say)
            case .waitForOwner(let owner, let milliseconds):
                // One look away while another process holds the prompt, then claim again.
                screen.showWaitingForOwner(owner)
                let wait = screen.waitForOwner(milliseconds: milliseconds)
                if screen.terminalGone {
                    switch machine.terminalGone() {
                    case .finish(let end, let say): return ended(end, say: say)
                    }
                }
                if case .interrupted(let interruption) = wait {
                    switch machine.interrupted(interruption) {
                    case .finish(let end, let say): return ended(end, say: say)
                    case .resume: context.interrupter.clear() // Forgotten (Ctrl-C at a terminal): the wait goes on.
                    }
                }
                switch machine.ownerWaitEnded(sessionLocked: try ledger.sessionIsLocked(session), takeOver: wait == .takeOver) {
                case .claimPrompt: takeOver = false
                case .takeOverPrompt: takeOver = true
                case .finish(let end, let say): return ended(end, say: say)
                }
                continue claiming
            }
            evaluating: while true {
                if clearInterruption { context.interrupter.clear() }
                if screen.terminalGone {
                    switch machine.terminalGone() {
                    case .finish(let end, let say): return ended(end, say: say)
                    }
                }
                let failure: AuthError
                switch try evaluation(notice: notice, on: screen) {
                case .success(let success):
                    switch machine.evaluationSucceeded() {
                    case .unlockSession: try ledger.unlockSession(session, user: user, after: success)
                    }
                    switch machine.unlocked() {
                    case .finish(let end, let say): return ended(end, say: say)
                    }
                case .failure(let error):
                    failure = try explained(error)
                }
                switch machine.evaluationFailed(failure, terminalGone: screen.terminalGone) {
                case .evaluate(let next, let clear):
                    (notice, clearInterruption) = (next, clear)
                case .claimPrompt:
                    takeOver = false
                    continue claiming
                case .finish(let end, let say):
                    return ended(end, say: say)
                case .waitForEnter(let shown):
                    screen.showStatus(try ledger.gateStatus(user: user, session: session, remoteHost: context.remoteHost),
                                      notice: ledger.gateNotice(shown))
                    switch machine.enterWaitEnded(screen.waitForEnter(), terminalGone: screen.terminalGone) {
                    case .evaluate(let next, let clear): (notice, clearInterruption) = (next, clear)
                    case .finish(let end, let say): return ended(end, say: say)
                    }
                case .countDown(let seconds):
                    // Each second reads the store again: a count reset elsewhere ends the
                    // countdown within that second. An interruption the machine forgets (Ctrl-C
                    // at a terminal) is cleared and the countdown goes on (a shorter second,
                    // never a longer one).
                    screen.showCountdown(seconds)
                    counting: while true {
                        if let interruption = screen.pause(milliseconds: 1_000) {
                            switch machine.interrupted(interruption) {
                            case .finish(let end, let say): return ended(end, say: say)
                            case .resume: context.interrupter.clear()
                            }
                        } else if screen.terminalGone {
                            switch machine.terminalGone() {
                            case .finish(let end, let say): return ended(end, say: say)
                            }
                        }
                        switch machine.tick(storeWait: try storeWait()) {
                        case .redrawCountdown(let seconds):
                            screen.redrawCountdown(seconds)
                        case .evaluate(let next, let clear):
                            (notice, clearInterruption) = (next, clear)
                            break counting
                        }
                    }
                }
            }
        }
    }

    /// One evaluation, with the status drawn before it: its success, or the error it ended with.
    /// Throws a ``StoreError`` when the store failed meanwhile (the caller goes on offline).
    private func evaluation(notice: String?, on screen: any GateScreen) throws -> Result<EvaluationSuccess, AuthError> {
        // Read once, for the status drawn and the evaluation that follows it.
        let record = try ledger.user(user)
        let configuration = try ledger.configuration(user: user)
        screen.showStatus(ledger.gateStatus(user: user, session: session, record: record, configuration: configuration,
                                            remoteHost: context.remoteHost),
                          notice: ledger.gateNotice(notice))
        do {
            return .success(try context.evaluateSynchronously(.deviceOwner, reason: reason, configuration: configuration,
                                                              record: record))
        } catch {
            if let storeError = error.storeError { throw storeError }
            return .failure(error)
        }
    }

    /// The passcode's wait the store says now (`nil`: it may be tried), for a second of the countdown.
    private func storeWait() throws -> Int? {
        let record = try ledger.user(user)
        return LockoutPolicy(configuration: try ledger.configuration(user: user)).passcodeRetryAfter(
            failures: record.passcodeFailures, lastFailure: record.lastPasscodeFailure, now: ledger.clock.now)
    }

    /// An appCancel, with what sent the session away when the store says (the watcher's screen
    /// lock or suspend, a `did-enter-background`): the gate says that rather than "cancelled".
    private func explained(_ error: AuthError) throws -> AuthError {
        guard error.code == .appCancel, error.detail == nil,
              let last = try ledger.lastLifecycleEvent(session: session), last.event == LifecycleEvent.didEnterBackground.rawValue
        else { return error }
        let detail = switch last.cause {
        case "screen-lock": "The screen was locked (logind Lock): the session stays locked."
        case "suspend": "The machine went to sleep: the session stays locked."
        case "lock": "The session was locked (touchgate lock): it stays locked."
        default: "The session was sent to the background (did-enter-background): it stays locked."
        }
        return AuthError(.appCancel, detail: detail)
    }
}
