import Glibc

/// The gate over one locked session: drives a ``GateStateMachine`` with the store (the prompt's
/// claim, the unlock) and the context's evaluations, and a ``GateScreen`` for the rest.
public final class Gate {
    public let store: Store
    public let session: String
    public let context: AuthContext
    let scripted: Bool
    /// The reason each evaluation shows; the CLI names the session as the user knows it.
    public var reason: String
    /// What this gate claims the prompt as.
    public let kind: PromptClaimKind

    /// - Parameter context: evaluates device-owner for the session's user; its interrupter is
    ///   the one the screen's signals post to.
    /// - Parameter kind: ``PromptClaimKind/tmuxPane`` for a gate in a tmux pane's shell, which
    ///   the tmux client's own gate takes over.
    public init(store: Store, session: String, context: AuthContext, scripted: Bool, kind: PromptClaimKind = .gate) {
        self.store = store
        self.session = session
        self.context = context
        self.scripted = scripted
        self.reason = "unlock session \(session.escapedForMessage)"
        self.kind = kind
    }

    /// Whether a gate claiming as `claimant` takes the prompt from live `owner` (claimed as
    /// `kind`) without waiting: when the user cannot reach the owner. A gate in a tmux pane
    /// draws behind the session's locked clients, where no one sees it, so any other gate takes
    /// over from it; a process on no terminal is not one the user types at, so a gate on a
    /// terminal takes over from it. Any other owner is waited for (until Enter at this gate).
    public static func takesOver(from owner: ProcessIdentity, kind: PromptClaimKind?, as claimant: PromptClaimKind) -> Bool {
        if kind == .tmuxPane, claimant != .tmuxPane { return true }
        let ownerOnTerminal = ProcessIdentity.hasControllingTerminal(owner.pid) ?? true
        let onTerminal = ProcessIdentity.hasControllingTerminal(getpid()) ?? false
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
            if !state.lifecycle.locked { state.lifecycle.becameVisible() }
            return state.lifecycle.locked
        }
    }

    /// Runs the gate to its end; throws a ``StoreError`` when the store fails meanwhile (the
    /// caller goes on offline: the gate still opens only for the passcode).
    public func run(on screen: any GateScreen) throws -> GateEnd {
        var machine = GateStateMachine(scripted: scripted)
        var action = machine.start()
        var claimed = false
        defer { if claimed { try? store.releasePrompt(session: session, pid: getpid()) } }
        while true {
            switch action {
            case .claimPrompt, .takeOverPrompt:
                let forced = action == .takeOverPrompt
                let claim = try store.claimPrompt(session: session, user: user, pid: getpid(), kind: kind.rawValue) { owner, ownerKind in
                    forced || Self.takesOver(from: owner, kind: ownerKind.flatMap(PromptClaimKind.init(rawValue:)), as: kind)
                }
                switch claim {
                case .heldBy(let owner):
                    action = machine.promptOwned(by: owner.pid)
                case .tookOver(let owner):
                    // Its prompt ends (appCancel); it claims again and finds this gate's claim.
                    if owner.isAlive { kill(owner.pid, SIGUSR1) }
                    claimed = true
                    action = machine.promptClaimed()
                case .claimed:
                    claimed = true
                    action = machine.promptClaimed()
                }
            case .waitForOwner(let owner, let milliseconds):
                screen.showWaitingForOwner(owner)
                let wait = screen.waitForOwner(milliseconds: milliseconds)
                if screen.terminalGone {
                    action = machine.terminalGone()
                    continue
                }
                if case .interrupted(let interruption) = wait {
                    action = machine.interrupted(interruption)
                    guard action == .resume else { continue }
                    // Forgotten (Ctrl-C at a terminal): the wait goes on.
                    context.interrupter.clear()
                }
                action = machine.ownerWaitEnded(sessionLocked: try locked(), takeOver: wait == .takeOver)
            case .evaluate(let notice, let clearInterruption):
                if clearInterruption { context.interrupter.clear() }
                if screen.terminalGone { action = machine.terminalGone(); continue }
                // Read once, for the status drawn and the evaluation that follows it.
                let record = try store.user(user)
                let configuration = try store.configuration(user: user)
                screen.showStatus(GateStatus(user: user, session: session, record: record, configuration: configuration,
                                             remoteHost: context.remoteHost, now: store.clock.now), notice: notice)
                do {
                    try context.evaluateSynchronously(.deviceOwner, reason: reason,
                                                      configuration: configuration, record: record)
                    action = machine.evaluationEnded(nil)
                } catch {
                    // The store failed meanwhile: the caller goes on offline.
                    if let storeError = error.storeError { throw storeError }
                    action = machine.evaluationEnded(try explained(error), terminalGone: screen.terminalGone)
                }
            case .unlockSession:
                try store.updateSession(session, user: user) { record in
                    record.lifecycle.unlock()
                    record.lifecycle.becameVisible()
                }
                action = machine.unlocked()
            case .countDown(let seconds):
                screen.showCountdown(seconds)
                action = screen.tick(&machine, interrupter: context.interrupter)
            case .redrawCountdown(let seconds):
                screen.redrawCountdown(seconds)
                action = screen.tick(&machine, interrupter: context.interrupter)
            case .waitForEnter(let notice):
                screen.showStatus(try status(), notice: notice)
                action = machine.enterWaitEnded(screen.waitForEnter(), terminalGone: screen.terminalGone)
            case .resume:
                preconditionFailure("resume is handled where the wait is")
            case .finish(let end, let say):
                if let say { screen.say(say) }
                return end
            }
        }
    }

    /// An appCancel, with what sent the session away when the store says (the watcher's screen
    /// lock or suspend, a `did-enter-background`): the gate says that rather than "cancelled".
    private func explained(_ error: AuthError) throws -> AuthError {
        guard error.code == .appCancel, error.detail == nil,
              let last = try store.lastLifecycleEvent(session: session), last.event == LifecycleEvent.didEnterBackground.rawValue
        else { return error }
        let detail = switch last.cause {
        case "screen-lock": "The screen was locked (logind Lock): the session stays locked."
        case "suspend": "The machine went to sleep: the session stays locked."
        default: "The session was sent to the background (did-enter-background): it stays locked."
        }
        return AuthError(.appCancel, detail: detail)
    }

    private func locked() throws -> Bool {
        try store.session(session)?.lifecycle.locked != false
    }

    private func status() throws -> GateStatus {
        try GateStatus.read(store: store, user: user, session: session, remoteHost: context.remoteHost)
    }
}
