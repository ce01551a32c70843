import TouchGateCore
import TouchGateStore
import TouchGateSystem

/// Where evaluations count their tries and a gate keeps its session: the port the evaluation
/// (``Evaluation``) and the gate (``Gate``) run against.
///
/// Two ledgers: the ``Store`` (durable, shared by every process of the user) and, for the gate
/// when the store cannot be read, an ``OfflineLedger`` in memory (passcode only, throttled with
/// the default schedule, claiming nothing and unlocking nothing). So one gate and one evaluation
/// serve both, and every rule of either is written once.
protocol AttemptLedger: AnyObject {
    /// The one clock of every decision made against this ledger.
    var clock: any Clock { get }
    func user(_ name: String) throws(StoreError) -> UserRecord
    func configuration(user: String) throws(StoreError) -> Configuration

    // MARK: - Tries

    /// Checks the lockout and counts the try ahead as a failure (``Store/admitAttempt(_:user:session:purpose:configuration:)``).
    func admitAttempt(
        _ factor: Factor, user: String, session: String?, purpose: AuditPolicy?, configuration: Configuration
    ) throws(StoreError) -> Admission
    /// How long the passcode is still throttled, before its prompt opens; counts nothing
    /// (``Store/passcodeRetryAfter(user:session:purpose:configuration:)``).
    func passcodeRetryAfter(
        user: String, session: String?, purpose: AuditPolicy?, configuration: Configuration
    ) throws(StoreError) -> Int?
    /// Settles an admitted try (``Store/finishAttempt(_:user:factor:result:)``).
    func finishAttempt(_ attempt: Int64, user: String, factor: Factor, result: AttemptResult) throws(StoreError)
    /// An outcome without an admitted try (a reuse, an evaluation that ended before one).
    func recordOutcome(user: String, session: String?, policy: AuditPolicy?, factor: AuditFactor, outcome: AuditOutcome) throws(StoreError)
    /// Work to run while PAM does (the store's log folded into its file); `nil` for none.
    func foldLogInBackground() -> HelperThread?
    func setEnrolled(_ enrolled: Bool, user: String, session: String?) throws(StoreError)

    // MARK: - The gate's session

    /// Claims `session`'s prompt for process `pid` (see ``Store/claimPrompt(session:user:pid:kind:takingOver:)``).
    func claimPrompt(
        session: String, user: String, pid: Int32, kind: PromptClaimKind, takingOver: (ProcessIdentity, PromptClaimKind?) -> Bool
    ) throws(StoreError) -> PromptClaim
    func releasePrompt(session: String, pid: Int32) throws(StoreError)
    /// Whether `session` is still locked (another process may have unlocked it meanwhile).
    func sessionIsLocked(_ session: String) throws(StoreError) -> Bool
    /// Unlocks `session` after `success`, and shows it (active).
    func unlockSession(_ session: String, user: String, after success: EvaluationSuccess) throws(StoreError)
    /// What sent `session` away last (its last lifecycle event and that event's cause).
    func lastLifecycleEvent(session: String) throws(StoreError) -> (event: String, cause: String?)?
    /// What the gate's status says, from the user's record and settings as just read.
    func gateStatus(
        user: String, session: String, record: UserRecord, configuration: Configuration, remoteHost: String?
    ) -> GateStatus
    /// The notice the gate shows, in this ledger's words (the offline ledger says why only the
    /// passcode can unlock).
    func gateNotice(_ notice: String?) -> String?
}

extension AttemptLedger {
    /// What the gate's status says now (the record and settings read for it).
    func gateStatus(user: String, session: String, remoteHost: String?) throws(StoreError) -> GateStatus {
        gateStatus(user: user, session: session, record: try self.user(user), configuration: try configuration(user: user),
                   remoteHost: remoteHost)
    }
}
