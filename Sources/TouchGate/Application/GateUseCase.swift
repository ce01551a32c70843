import TouchGateCore
import TouchGatePAM
import TouchGateStore
import TouchGateTerminal

/// What one `touchgate gate` is asked: the session, whose, and how the gate was started.
package struct GateRequest: Sendable, Equatable {
    package var session: String
    package var user: String
    /// The shell has been idle since then (`--idle-since`).
    package var idleSince: Double?
    /// A lock request (tmux's lock-command, `--lock`): lock now unless returning within grace.
    package var lockRequest: Bool
    /// `-S`: standard input answers.
    package var scripted: Bool
    /// What the gate claims the prompt as (``PromptClaimKind/tmuxPane`` in a tmux pane's shell).
    package var kind: PromptClaimKind
    /// The remote host of a remote session (SSH), or `nil`.
    package var remoteHost: String?
    /// The socket of the session's tmux server, for a session the hooks have not recorded yet.
    package var tmuxSocket: String?
    /// `--cancelable`: Ctrl-C ends the gate (userCancel) instead of clearing the line.
    package var cancelable: Bool

    package init(
        session: String, user: String, idleSince: Double? = nil, lockRequest: Bool = false, scripted: Bool = false,
        kind: PromptClaimKind = .gate, remoteHost: String? = nil, tmuxSocket: String? = nil,
        cancelable: Bool = false
    ) {
        self.session = session
        self.user = user
        self.idleSince = idleSince
        self.lockRequest = lockRequest
        self.scripted = scripted
        self.kind = kind
        self.remoteHost = remoteHost
        self.tmuxSocket = tmuxSocket
        self.cancelable = cancelable
    }
}

/// How one gate ended, for the executable to render.
package enum GateOutcome: Sendable, Equatable {
    /// The session may be shown at once (the fast path: the lock off, or the session active and
    /// unlocked with nothing to decide); nothing was written.
    case open
    /// The session was locked and the gate over it ran to this end.
    case ended(GateEnd)
    /// The session is locked and there is no terminal to ask at; with the store's problem when
    /// the store could not be read.
    case notInteractive(storeProblem: String?)
}

/// What the executable provides around a gate (the screen and prompt source port): the
/// terminal to ask at, the session's name as the user knows it, the other clients that show it.
package protocol GateSurroundings {
    /// Where answers come from; `nil` when there is no terminal.
    func makePromptSource() -> (any PromptSource)?
    /// What the user knows `session` by (a tmux session's name, a shell's terminal), else its id.
    func sessionLabel(_ session: String, socket: String?) -> String
    /// The session is locked: lock it wherever else it shows (every tmux client of it).
    func lockClients(of session: String, store: Store, socket: String?)
    /// The screen the gate draws on and waits at; `readStatus` reads the status for the redraw
    /// after a wrong try.
    func cover(header: [String], prompts: any PromptSource, scripted: Bool, interrupter: Interrupter,
               readStatus: @escaping () -> GateStatus?) -> any GateScreen
}

extension GateSurroundings {
    /// The terminal's cover (``GateCover``).
    package func cover(header: [String], prompts: any PromptSource, scripted: Bool, interrupter: Interrupter,
                      readStatus: @escaping () -> GateStatus?) -> any GateScreen {
        let cover = GateCover(header: header, prompts: prompts, scripted: scripted, interrupter: interrupter)
        cover.readStatus = readStatus
        return cover
    }
}

/// `touchgate gate` as a use case: decides whether the session may be shown at once (the fast
/// path), else runs the ``Gate`` over it until an evaluation succeeds, and holds the fail-closed
/// policy: whenever the store cannot be read (opening it, deciding, or while the gate holds the
/// terminal) the same gate runs on an ``OfflineLedger``, passcode only, and never unlocks the
/// store's session.
///
/// Runs against injected ports: the store (opened by `openStore`), one ``Clock`` for every
/// decision, the credential checkers, a ``ProcessProbe`` and the ``GateSurroundings``.
package final class GateUseCase {
    let openStore: () throws -> Store
    let clock: any Clock
    let checker: any CredentialChecker
    let biometricChecker: (any CredentialChecker)?
    let processes: any ProcessProbe

    package init(
        openStore: @escaping () throws -> Store, clock: any Clock, checker: any CredentialChecker,
        biometricChecker: (any CredentialChecker)? = nil, processes: any ProcessProbe = SystemProcessProbe()
    ) {
        self.openStore = openStore
        self.clock = clock
        self.checker = checker
        self.biometricChecker = biometricChecker
        self.processes = processes
    }

    /// Runs the gate of `request`; throws only what `openStore` throws beside a ``StoreError``, and
    /// a store's internal error (a bug: the gate does not go offline on one, the session stays locked).
    package func run(_ request: GateRequest, in surroundings: any GateSurroundings) throws -> GateOutcome {
        let store: Store
        let record: UserRecord
        let configuration: Configuration
        let existing: SessionRecord?
        do {
            store = try openStore()
            record = try store.user(request.user)
            guard record.enabled else { return .open }
            configuration = try store.configuration(user: request.user)
            existing = try store.session(request.session)
        } catch let error as StoreError {
            return try offline(request, storeError: error, in: surroundings)
        }
        let locked: Bool
        do {
            locked = try GateStart.sessionIsLocked(
                store: store, session: request.session, record: record, configuration: configuration, existing: existing,
                idleSince: request.idleSince, lockRequest: request.lockRequest, now: clock.now)
        } catch let error as StoreError {
            return try offline(request, storeError: error, in: surroundings)
        }
        guard locked else { return .open }
        // A tmux session is locked on every client that shows it, not only where this gate runs.
        surroundings.lockClients(of: request.session, store: store, socket: request.tmuxSocket)
        guard let prompts = surroundings.makePromptSource() else { return .notInteractive(storeProblem: nil) }
        let label = surroundings.sessionLabel(request.session, socket: existing?.tmuxSocket ?? request.tmuxSocket)
        let gate = makeGate(request, ledger: store, biometricChecker: biometricChecker, prompts: prompts, label: label)
        do {
            let screen = surroundings.cover(
                header: GateCover.header(user: request.user, label: label), prompts: prompts, scripted: request.scripted,
                interrupter: gate.context.interrupter
            ) { [user = request.user, session = request.session, remote = request.remoteHost] in
                try? store.gateStatus(user: user, session: session, remoteHost: remote)
            }
            defer { screen.release() }
            return .ended(try gate.run(on: screen))
        } catch let error as StoreError {
            // The store failed while the gate held the terminal: it still opens only for the passcode.
            return try offline(request, storeError: error, in: surroundings)
        }
    }

    /// The gate when the store cannot be read: the same gate on an in-memory ledger. A store's
    /// internal error is thrown instead: a bug is not an unreadable file, and must not turn every
    /// gate into one that counts nothing.
    private func offline(
        _ request: GateRequest, storeError: StoreError, in surroundings: any GateSurroundings
    ) throws(StoreError) -> GateOutcome {
        guard storeError.reason != .internalError else { throw storeError }
        guard let prompts = surroundings.makePromptSource() else { return .notInteractive(storeProblem: storeError.description) }
        let ledger = OfflineLedger(user: request.user, storeError: storeError, clock: clock)
        let label = surroundings.sessionLabel(request.session, socket: nil)
        // No biometric checker at all: the factor needs the store to count its lockout.
        let gate = makeGate(request, ledger: ledger, biometricChecker: nil, prompts: prompts, label: label)
        let screen = surroundings.cover(
            header: GateCover.header(user: request.user, label: label), prompts: prompts, scripted: request.scripted,
            interrupter: gate.context.interrupter, readStatus: { nil })
        defer { screen.release() }
        do {
            return .ended(try gate.run(on: screen))
        } catch {
            // The offline ledger throws nothing; should anything fail, the session stays locked.
            return .ended(.stopped(AuthError(.systemCancel)))
        }
    }

    /// The gate over `ledger`, with its context: device-owner for the request's user, Ctrl-C
    /// only clearing the line, the passcode as the fallback's name.
    private func makeGate(
        _ request: GateRequest, ledger: any AttemptLedger, biometricChecker: (any CredentialChecker)?, prompts: any PromptSource,
        label: String
    ) -> Gate {
        let context = AuthContext(
            user: request.user, ledger: ledger, session: request.session, checker: checker,
            biometricChecker: biometricChecker, prompts: prompts, interrupter: Interrupter())
        context.remoteHost = request.remoteHost
        context.fallbackTitle = "the passcode"
        // Ctrl-C only clears the line at the gate (unless cancelable): offering it as "cancel" would mislead.
        if !request.cancelable { context.cancelTitle = nil }
        let gate = Gate(ledger: ledger, session: request.session, context: context, scripted: request.scripted,
                        kind: request.kind, processes: processes)
        gate.cancelable = request.cancelable
        gate.reason = "unlock " + (label == request.session ? "session \(request.session.escapedForMessage)" : label.escapedForMessage)
        return gate
    }
}
