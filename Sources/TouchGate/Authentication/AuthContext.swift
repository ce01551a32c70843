import Synchronization
import TouchGateCore
import TouchGatePAM
import TouchGateStore
import TouchGateSystem
import TouchGateTerminal

/// An authentication context, after `LAContext`: evaluates a policy for one user against the
/// PAM stacks named in the store's configuration, keeping the lockout counts in the store.
///
/// One context serves one user. ``invalidate()`` ends a pending evaluation with `appCancel`
/// and every later one with `invalidContext`. The context may be shared across threads (to call
/// ``invalidate()`` during an evaluation), but runs one evaluation at a time.
///
/// Sendable by a check, not by a promise: its settings sit under a lock (any thread sets them);
/// its ledger (a store on a `SQLITE_OPEN_NOMUTEX` connection), checkers and prompts are used only
/// inside ``turn``, which every entry point that reaches them takes and which traps when two
/// threads' calls would overlap (as NIO's `NIOLoopBound` and GRDB's `SerializedDatabase` do).
public final class AuthContext: @unchecked Sendable {
    public let user: String
    /// Where tries are counted: the store, or the gate's in-memory ledger when it cannot be read.
    let ledger: any AttemptLedger
    /// Passed through to the store's audit log and used by lifecycle events to find a prompt.
    public let session: String?
    /// Signals and lifecycle events post here to cut a prompt short.
    public let interrupter: Interrupter
    let checker: any CredentialChecker
    /// The checker of the biometric factor: ``checker`` unless another was given (the CLI runs it
    /// in a worker process, ``WorkerCredentialChecker``, so a wait for a sensor can be cancelled).
    let biometricChecker: any CredentialChecker
    public let prompts: (any PromptSource)?
    private let state: Mutex<MutableState>
    /// Held by the thread that uses ``ledger``, the checkers and ``prompts`` now.
    let turn = ExclusiveTurn("an AuthContext")

    private struct MutableState {
        var invalidated = false
        var interactionNotAllowed = false
        var reuseDuration: Double?
        var fallbackTitle: String? = "Use Passcode"
        var cancelTitle: String? = "Cancel"
        var remoteHost: String?
        var biometricEnrollmentImplied = false
        var passcodeTriesLimit: Int?
        /// The evaluation running now, for ``invalidate()`` and ``didEnterBackground()`` to cancel.
        var running: Evaluation?
    }

    /// The longest ``reuseDuration`` allowed, like `LATouchIDAuthenticationMaximumAllowableReuseDuration`.
    public static let maximumReuseDuration: Double = 300

    /// - Parameter prompts: where answers come from; `nil` when there is no terminal, so any
    ///   prompt ends the evaluation with `notInteractive`.
    /// - Parameter biometricChecker: the biometric factor's checker, when it is not `checker`.
    public convenience init(
        user: String, store: Store, session: String? = nil, checker: any CredentialChecker = PAMCredentialChecker(),
        biometricChecker: (any CredentialChecker)? = nil,
        prompts: (any PromptSource)?, interrupter: Interrupter = Interrupter()
    ) {
        self.init(user: user, ledger: store, session: session, checker: checker, biometricChecker: biometricChecker,
                  prompts: prompts, interrupter: interrupter)
    }

    /// A context that counts in `ledger` (the gate's offline ledger, or the store).
    init(
        user: String, ledger: any AttemptLedger, session: String?, checker: any CredentialChecker,
        biometricChecker: (any CredentialChecker)?, prompts: (any PromptSource)?, interrupter: Interrupter
    ) {
        self.user = user
        self.ledger = ledger
        self.session = session
        self.checker = checker
        self.biometricChecker = biometricChecker ?? checker
        self.prompts = prompts
        self.interrupter = interrupter
        self.state = Mutex(MutableState())
    }

    /// When true, an evaluation that would need to prompt fails with `notInteractive` instead.
    public var interactionNotAllowed: Bool {
        get { state.withLock { $0.interactionNotAllowed } }
        set { state.withLock { $0.interactionNotAllowed = newValue } }
    }

    /// Seconds after a success during which an evaluation succeeds without asking; 0 to 300.
    ///
    /// `nil` (the default) takes the store's `reuse-seconds` setting, read with the rest of the
    /// configuration when an evaluation starts; a value set here overrides it for this context.
    public var reuseDuration: Double? {
        get { state.withLock { $0.reuseDuration } }
        set { state.withLock { $0.reuseDuration = newValue.map { min(max(0, $0), Self.maximumReuseDuration) } } }
    }

    /// The label of the fallback choice shown at the biometric prompt (`nil` hides the hint).
    public var fallbackTitle: String? {
        get { state.withLock { $0.fallbackTitle } }
        set { state.withLock { $0.fallbackTitle = newValue } }
    }

    /// The label of the cancel choice (Ctrl-C) shown at prompts (`nil` hides the hint).
    public var cancelTitle: String? {
        get { state.withLock { $0.cancelTitle } }
        set { state.withLock { $0.cancelTitle = newValue } }
    }

    /// The remote host of a remote session (SSH), or `nil` for a local one.
    ///
    /// A sensor on this machine cannot take the remote user's finger: in a remote session the
    /// biometric factor is `biometryNotAvailable` and device-owner goes straight to the passcode.
    /// (The CLI also passes the host to the stacks as `PAM_RHOST`.)
    public var remoteHost: String? {
        get { state.withLock { $0.remoteHost } }
        set { state.withLock { $0.remoteHost = newValue } }
    }

    /// When true, the biometric factor needs no `touchgate enroll`: the stack alone decides (the
    /// PAM helper's ledger, where a stack without the user's prints answers "unavailable" at once).
    public var biometricEnrollmentImplied: Bool {
        get { state.withLock { $0.biometricEnrollmentImplied } }
        set { state.withLock { $0.biometricEnrollmentImplied = newValue } }
    }

    /// At most how many passcode answers an evaluation of this context accepts, below the user's
    /// `passcode-tries-per-evaluation` (`nil`: that setting alone); the PAM helper takes 1, as
    /// its hosts ask again themselves.
    public var passcodeTriesLimit: Int? {
        get { state.withLock { $0.passcodeTriesLimit } }
        set { state.withLock { $0.passcodeTriesLimit = newValue.map { max(1, $0) } } }
    }

    /// An opaque value that changes whenever the biometric enrollment changes; `nil` when not enrolled.
    public var domainState: String? {
        get throws(StoreError) { try turn.take { () throws(StoreError) in try ledger.user(user).domainState } }
    }

    /// Ends a pending evaluation with `appCancel`; later evaluations fail with `invalidContext`.
    public func invalidate() {
        let running = state.withLock { state in
            state.invalidated = true
            return state.running
        }
        running?.interrupt(.application)
    }

    /// The session went to the background (`did-enter-background`): a pending evaluation ends
    /// with `appCancel` at once (a biometric worker killed); the context stays usable.
    public func didEnterBackground() {
        state.withLock { $0.running }?.interrupt(.application)
    }

    /// Whether `policy` could be evaluated now, without prompting and without counting anything.
    ///
    /// Throws the ``AuthError`` an evaluation would end with before asking anything
    /// (``AuthError/Code/storeUnavailable`` when the store cannot be read).
    public func canEvaluate(_ policy: AuthPolicy) throws(AuthError) {
        try turn.take { () throws(AuthError) in try canEvaluateInTurn(policy) }
    }

    private func canEvaluateInTurn(_ policy: AuthPolicy) throws(AuthError) {
        if state.withLock({ $0.invalidated }) { throw AuthError(.invalidContext) }
        let configuration = try AuthError.wrapping { () throws(StoreError) in try ledger.configuration(user: user) }
        let record = try AuthError.wrapping { () throws(StoreError) in try ledger.user(user) }
        let required = ledger.passcodeRequired(record: record, configuration: configuration)
        var biometric = biometricAvailability(configuration: configuration, record: record)
        if biometric == nil, required != nil { biometric = .biometryLockout }
        switch policy {
        case .biometrics:
            if let biometric {
                throw EvaluationStateMachine.biometricError(biometric, remoteHost: remoteHost, passcodeRequired: required)
            }
        case .deviceOwner:
            if biometric == nil { return }
            guard checker.serviceExists(configuration.passcodeService) else { throw AuthError(.passcodeNotSet) }
            if let wait = LockoutPolicy(configuration: configuration).passcodeRetryAfter(
                failures: record.passcodeFailures, lastFailure: record.lastPasscodeFailure, now: ledger.clock.now) {
                throw AuthError(.authenticationFailed, retryAfterSeconds: wait)
            }
        }
    }

    /// ``evaluate(_:reason:)`` on the calling thread, for command-line tools that own their thread.
    ///
    /// Returns the ``EvaluationSuccess`` a session's unlock takes; throws the outcome otherwise: an
    /// ``AuthError`` with `LAError`'s code, or ``AuthError/Code/storeUnavailable`` with the
    /// ``StoreError`` when the store cannot be used (nothing unlocks after one).
    @discardableResult
    public func evaluateSynchronously(_ policy: AuthPolicy, reason: String) throws(AuthError) -> EvaluationSuccess {
        try turn.take { () throws(AuthError) in
            if state.withLock({ $0.invalidated }) { throw AuthError(.invalidContext) }
            let (configuration, record) = try readUser()
            return try evaluateSynchronously(policy, reason: reason, configuration: configuration, record: record)
        }
    }

    /// The user's settings and record, read for an evaluation.
    private func readUser() throws(AuthError) -> (Configuration, UserRecord) {
        try AuthError.wrapping { () throws(StoreError) in (try ledger.configuration(user: user), try ledger.user(user)) }
    }

    /// ``evaluateSynchronously(_:reason:)`` with the user's settings and record as the caller
    /// read them just now (the gate, which draws them in its status before each evaluation).
    func evaluateSynchronously(
        _ policy: AuthPolicy, reason: String, configuration: Configuration, record: UserRecord
    ) throws(AuthError) -> EvaluationSuccess {
        try turn.take { () throws(AuthError) in
            try reuseOrRun(policy, reason: reason, configuration: configuration, record: record)
        }
    }

    /// A success within ``reuseDuration`` of the last, or else an evaluation (in the turn).
    private func reuseOrRun(
        _ policy: AuthPolicy, reason: String, configuration: Configuration, record: UserRecord
    ) throws(AuthError) -> EvaluationSuccess {
        if state.withLock({ $0.invalidated }) { throw AuthError(.invalidContext) }
        let settings = state.withLock { $0 }
        let window = settings.reuseDuration ?? Double(configuration.reuseSeconds)
        let now = ledger.clock.now
        // A lockdown (the user's or an administrator's) also ends the reuse of an earlier success.
        if window > 0, !record.lockdown, !record.adminLock, let lastSuccess = record.lastSuccess, now - lastSuccess < window,
           now >= lastSuccess {
            try AuthError.wrapping { () throws(StoreError) in
                try ledger.recordOutcome(user: user, session: session, policy: .evaluation(policy), factor: .reuse,
                                         outcome: .success)
            }
            return EvaluationSuccess(user: user, purpose: .evaluation(policy))
        }
        return try run(.policy(policy), purpose: .evaluation(policy), reason: reason, configuration: configuration, record: record)
    }

    /// Checks the passcode alone (for `reset`, `unenroll` and enrollment's first step).
    @discardableResult
    public func verifyPasscode(purpose: AuditPolicy, reason: String) throws(AuthError) -> EvaluationSuccess {
        try turn.take { () throws(AuthError) in
            if state.withLock({ $0.invalidated }) { throw AuthError(.invalidContext) }
            let (configuration, record) = try readUser()
            return try run(.passcodeOnly, purpose: purpose, reason: reason, configuration: configuration, record: record)
        }
    }

    /// Enrolls the biometric factor: checks the passcode, then asks for one biometric success,
    /// then records the enrollment, which changes ``domainState``.
    public func enroll(reason: String) throws(AuthError) {
        try turn.take { () throws(AuthError) in
            if state.withLock({ $0.invalidated }) { throw AuthError(.invalidContext) }
            let (configuration, record) = try readUser()
            _ = try run(.enrollment, purpose: .enroll, reason: reason, configuration: configuration, record: record)
            try AuthError.wrapping { () throws(StoreError) in try ledger.setEnrolled(true, user: user, session: session) }
        }
    }

    /// Drives one evaluation's state machine to its end, registered so ``invalidate()`` and
    /// ``didEnterBackground()`` reach it meanwhile.
    private func run(
        _ mode: EvaluationStateMachine.Mode, purpose: AuditPolicy, reason: String, configuration: Configuration, record: UserRecord
    ) throws(AuthError) -> EvaluationSuccess {
        precondition(turn.isHeldByCurrentThread, "an AuthContext's evaluation runs in its turn")
        let settings = state.withLock { $0 }
        var record = record
        if settings.biometricEnrollmentImplied { record.enrolled = true }
        let prompts: any PromptSource = settings.interactionNotAllowed ? NoInteraction() : (self.prompts ?? NoInteraction())
        let evaluation = Evaluation(context: self, mode: mode, purpose: purpose, configuration: configuration, prompts: prompts)
        // Registered under the lock that invalidate() takes: an invalidation either comes first
        // (invalidContext) or reaches this evaluation.
        let invalidated = state.withLock { state in
            if !state.invalidated { state.running = evaluation }
            return state.invalidated
        }
        if invalidated { throw AuthError(.invalidContext) }
        defer { state.withLock { $0.running = nil } }
        let passcodeMissing = checker.serviceExists(configuration.passcodeService)
            ? nil : checker.missingServiceDescription(configuration.passcodeService, role: "passcode")
        let required = ledger.passcodeRequired(record: record, configuration: configuration)
        var snapshot = EvaluationStateMachine.Snapshot(
            record: record, configuration: configuration, remoteHost: settings.remoteHost,
            biometricStackExists: mode == .passcodeOnly ? false : biometricChecker.serviceExists(configuration.biometricService),
            passcodeStackMissing: passcodeMissing, reason: reason, fallbackTitle: settings.fallbackTitle,
            cancelTitle: settings.cancelTitle,
            passcodeTries: min(configuration.passcodeTriesPerEvaluation, settings.passcodeTriesLimit ?? .max),
            passcodeRequired: required)
        // Asked of logind only when the finger would be tried now (one small exec, LidState).
        if case .policy(_) = mode, snapshot.biometricStackExists, settings.remoteHost == nil,
           record.hasBiometricFactor(under: configuration), required == nil {
            snapshot.lidClosed = LidState.closed()
        }
        return try evaluation.run(snapshot)
    }

    /// The reason the biometric factor cannot be used now, or `nil` when it can.
    func biometricAvailability(configuration: Configuration, record: UserRecord) -> AuthError.Code? {
        EvaluationStateMachine.biometricAvailability(
            record: record, configuration: configuration, remoteHost: remoteHost,
            stackExists: biometricChecker.serviceExists(configuration.biometricService))
    }
}
