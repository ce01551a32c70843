import Glibc

/// The gate over one locked session: drives a ``GateStateMachine`` with its ledger (the
/// prompt's claim, the unlock: the store's, or when the store cannot be read an
/// ``OfflineLedger``'s, which claims and unlocks nothing) and the context's evaluations, and a
/// ``GateScreen`` for the rest. Nothing else steps the machine.
public final class Gate {
    let ledger: any AttemptLedger
    public let session: String
    public let context: AuthContext
    let scripted: Bool
    /// The reason each evaluation shows; the CLI names the session as the user knows it.
    public var reason: String
    /// What this gate claims the prompt as.
    public let kind: PromptClaimKind
    /// Ctrl-C ends the gate (userCancel) instead of clearing the line (``GateStateMachine/cancelable``).
    public var cancelable = false
    let processes: any ProcessProbe

    /// - Parameter context: evaluates device-owner for the session's user in `store`; its
    ///   interrupter is the one the screen's signals post to.
    /// - Parameter kind: ``PromptClaimKind/tmuxPane`` for a gate in a tmux pane's shell, which
    ///   the tmux client's own gate takes over.
    public convenience init(
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

    /// Whether a gate claiming as `claimant` takes the prompt from live `owner` (claimed as
    /// `kind`) without waiting: when the user cannot reach the owner. A gate in a tmux pane
    /// draws behind the session's locked clients, where no one sees it, so any other gate takes
    /// over from it; a process on no terminal is not one the user types at, so a gate on a
    /// terminal takes over from it. Any other owner is waited for (until Enter at this gate).
    public static func takesOver(
        from owner: ProcessIdentity, kind: PromptClaimKind?, as claimant: PromptClaimKind,
        processes: any ProcessProbe = SystemProcessProbe()
    ) -> Bool {
        if kind == .tmuxPane, claimant != .tmuxPane { return true }
        let ownerOnTerminal = processes.hasControllingTerminal(owner.pid) ?? true
        let onTerminal = processes.hasControllingTerminal(processes.currentPID) ?? false
        return !ownerOnTerminal && onTerminal
    }

    private var user: String { context.user }

    /// Whether `session` is locked now, after the lifecycle's rules for a gate that starts: a
    /// launch the store never saw is recorded, idle time and a return from the background may
    /// lock, `lockRequest` locks, and a session left unlocked becomes visible.
    ///
    /// The fast path (an active, unlocked session with nothing to decide) only reads what the
    /// caller read already and writes nothing; everything else is one transaction.
    public static func sessionIsLocked(
        store: Store, session: String, record: UserRecord, configuration: Configuration, existing: SessionRecord?,
        idleSince: Double?, lockRequest: Bool, now: Double
    ) throws -> Bool {
        let idle = idleSince.map { configuration.idleSeconds > 0 && now - $0 >= Double(configuration.idleSeconds) } ?? false
        if let existing, existing.lifecycle.state == .active, !existing.lifecycle.locked, !lockRequest, !idle {
            return false
        }
        // A session the store does not know, or one that is not running, is a launch that was not
        // recorded (the launch event failed, or nothing sent it): while the lock is on it is locked,
        // never shown on trust. The gate records the launch itself.
        let launching = existing == nil || existing?.lifecycle.state == .notRunning
        let policy = SessionLifecycle.Policy(enabled: record.enabled, graceSeconds: configuration.graceSeconds)
        return try store.updateSession(session, user: record.name, recording: launching ? .didFinishLaunching : nil) { state in
            if state.lifecycle.state == .notRunning {
                _ = try state.lifecycle.handle(.didFinishLaunching, now: now, policy: policy)
            }
            if idle, let since = idleSince {
                state.lifecycle.idled(since: since, now: now, policy: policy)
            } else if state.lifecycle.state == .background || state.lifecycle.isReturning {
                state.lifecycle.relockIfGraceElapsed(now: now, policy: policy)
            } else if lockRequest {
                state.lifecycle.lock(policy: policy)
            }
            state.lifecycle.becameVisible(now: now, policy: policy)
            return state.lifecycle.locked
        }
    }

    /// What the driver does next: one of the machine's actions, whichever input asked for it.
    private enum Step {
        case claim(takeOver: Bool)
        case waitForOwner(Int32, milliseconds: Int32)
        case evaluate(notice: String?, clearInterruption: Bool)
        case unlock(EvaluationSuccess)
        case countDown(seconds: Int)
        case waitForEnter(notice: String?)
        case finish(GateEnd, say: String?)
    }

    /// Runs the gate to its end; throws a ``StoreError`` when the store fails meanwhile (the
    /// caller goes on offline: the gate still opens only for the passcode).
    public func run(on screen: any GateScreen) throws -> GateEnd {
        var machine = GateStateMachine(scripted: scripted, cancelable: cancelable)
        let hold = PromptHold(ledger: ledger, session: session, user: user, kind: kind, probe: processes)
        defer { hold.release() }
        var step: Step = switch machine.start() {
        case .claimPrompt: .claim(takeOver: false)
        }
        while true {
            switch step {
            case .claim(let forced):
                // A live owner taken over has its prompt ended (appCancel); it claims again and
                // finds this gate's claim.
                let claim = try hold.claim { [kind, processes] owner, ownerKind in
                    forced || Self.takesOver(from: owner, kind: ownerKind, as: kind, processes: processes)
                }
                let action: GateStateMachine.ClaimAction = switch claim {
                case .heldBy(let owner): machine.promptOwned(by: owner.pid)
                case .tookOver, .claimed: machine.promptClaimed(sessionLocked: try ledger.sessionIsLocked(session))
                }
                step = switch action {
                case .evaluate(let notice, let clearInterruption): .evaluate(notice: notice, clearInterruption: clearInterruption)
                case .waitForOwner(let owner, let milliseconds): .waitForOwner(owner, milliseconds: milliseconds)
                case .finish(let end, let say): .finish(end, say: say)
                }
            case .waitForOwner(let owner, let milliseconds):
                step = try waitForOwner(owner, milliseconds: milliseconds, machine: &machine, screen: screen)
            case .evaluate(let notice, let clearInterruption):
                step = try evaluate(notice: notice, clearInterruption: clearInterruption, machine: &machine, screen: screen)
            case .unlock(let success):
                try ledger.unlockSession(session, user: user, after: success)
                step = switch machine.unlocked() {
                case .finish(let end, let say): .finish(end, say: say)
                }
            case .countDown(let seconds):
                screen.showCountdown(seconds)
                step = try countDown(machine: &machine, screen: screen)
            case .waitForEnter(let notice):
                screen.showStatus(try ledger.gateStatus(user: user, session: session, remoteHost: context.remoteHost),
                                  notice: ledger.gateNotice(notice))
                step = switch machine.enterWaitEnded(screen.waitForEnter(), terminalGone: screen.terminalGone) {
                case .evaluate(let notice, let clearInterruption): .evaluate(notice: notice, clearInterruption: clearInterruption)
                case .finish(let end, let say): .finish(end, say: say)
                }
            case .finish(let end, let say):
                if let say { screen.say(say) }
                return end
            }
        }
    }

    /// One look away while another process holds the prompt, and what follows it.
    private func waitForOwner(
        _ owner: Int32, milliseconds: Int32, machine: inout GateStateMachine, screen: any GateScreen
    ) throws -> Step {
        screen.showWaitingForOwner(owner)
        let wait = screen.waitForOwner(milliseconds: milliseconds)
        if screen.terminalGone { return Self.step(machine.terminalGone()) }
        if case .interrupted(let interruption) = wait {
            switch machine.interrupted(interruption) {
            case .finish(let end, let say): return .finish(end, say: say)
            case .resume:
                // Forgotten (Ctrl-C at a terminal): the wait goes on.
                context.interrupter.clear()
            }
        }
        return switch machine.ownerWaitEnded(sessionLocked: try ledger.sessionIsLocked(session), takeOver: wait == .takeOver) {
        case .claimPrompt: .claim(takeOver: false)
        case .takeOverPrompt: .claim(takeOver: true)
        case .finish(let end, let say): .finish(end, say: say)
        }
    }

    /// One evaluation, with the status drawn before it, and what follows it.
    private func evaluate(
        notice: String?, clearInterruption: Bool, machine: inout GateStateMachine, screen: any GateScreen
    ) throws -> Step {
        if clearInterruption { context.interrupter.clear() }
        if screen.terminalGone { return Self.step(machine.terminalGone()) }
        // Read once, for the status drawn and the evaluation that follows it.
        let record = try ledger.user(user)
        let configuration = try ledger.configuration(user: user)
        screen.showStatus(ledger.gateStatus(user: user, session: session, record: record, configuration: configuration,
                                            remoteHost: context.remoteHost),
                          notice: ledger.gateNotice(notice))
        let success: EvaluationSuccess
        do {
            success = try context.evaluateSynchronously(.deviceOwner, reason: reason, configuration: configuration, record: record)
        } catch {
            // The store failed meanwhile: the caller goes on offline.
            if let storeError = error.storeError { throw storeError }
            return switch machine.evaluationFailed(try explained(error), terminalGone: screen.terminalGone) {
            case .countDown(let seconds): .countDown(seconds: seconds)
            case .claimPrompt: .claim(takeOver: false)
            case .waitForEnter(let notice): .waitForEnter(notice: notice)
            case .evaluate(let notice, let clearInterruption): .evaluate(notice: notice, clearInterruption: clearInterruption)
            case .finish(let end, let say): .finish(end, say: say)
            }
        }
        return switch machine.evaluationSucceeded() {
        case .unlockSession: .unlock(success)
        }
    }

    /// The seconds of a countdown, until it ends (an evaluation) or an interruption ends the
    /// gate. An interruption the machine forgets (Ctrl-C at a terminal) is cleared and the
    /// countdown goes on (a shorter second, never a longer one). Each second reads the store
    /// again: a count reset elsewhere ends the countdown within that second.
    private func countDown(machine: inout GateStateMachine, screen: any GateScreen) throws -> Step {
        while true {
            if let interruption = screen.pause(milliseconds: 1_000) {
                switch machine.interrupted(interruption) {
                case .finish(let end, let say): return .finish(end, say: say)
                case .resume: context.interrupter.clear()
                }
            } else if screen.terminalGone {
                return Self.step(machine.terminalGone())
            }
            let record = try ledger.user(user)
            let wait = LockoutPolicy(configuration: try ledger.configuration(user: user)).passcodeRetryAfter(
                failures: record.passcodeFailures, lastFailure: record.lastPasscodeFailure, now: ledger.clock.now)
            switch machine.tick(storeWait: wait) {
            case .redrawCountdown(let seconds): screen.redrawCountdown(seconds)
            case .evaluate(let notice, let clearInterruption): return .evaluate(notice: notice, clearInterruption: clearInterruption)
            }
        }
    }

    private static func step(_ action: GateStateMachine.TerminalGoneAction) -> Step {
        switch action {
        case .finish(let end, let say): .finish(end, say: say)
        }
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
