import TouchGateCore
import TouchGateStore
import TouchGateSystem

/// The ledger of the gate when the store cannot be read: in memory, for this process only.
///
/// Without the store nothing can be counted durably and nothing of the store's can be trusted,
/// so the gate fails closed: the user's record is a fresh one (nothing enrolled, so device-owner
/// is the passcode alone, and a biometric try is refused anyway), the passcode is throttled here
/// with the default schedule, the prompt is claimed from no one, and an unlock unlocks nothing
/// in the store (the gate's success only ends it). Every try is still admitted and settled, as
/// in the store, so a secret that reached PAM stays counted.
final class OfflineLedger: AttemptLedger {
    let clock: any Clock
    /// Said with every notice: why only the passcode can unlock.
    let storeProblem: String
    private let configuration = Configuration()
    private var record: UserRecord
    private var nextAttempt: Int64 = 1

    init(user: String, storeError: StoreError, clock: any Clock) {
        self.clock = clock
        self.storeProblem = storeError.description
        self.record = UserRecord(name: user)
    }

    func user(_ name: String) throws(StoreError) -> UserRecord { record }

    func configuration(user: String) throws(StoreError) -> Configuration { configuration }

    func admitAttempt(
        _ factor: Factor, user: String, session: String?, purpose: AuditPolicy?, configuration: Configuration
    ) throws(StoreError) -> Admission {
        let lockout = LockoutPolicy(configuration: self.configuration)
        switch factor {
        case .biometric:
            // Its lockout cannot be counted without the store.
            return .lockedOut
        case .passcode:
            if let wait = lockout.passcodeRetryAfter(
                failures: record.passcodeFailures, lastFailure: record.lastPasscodeFailure, now: clock.now) {
                return .throttled(retryAfterSeconds: wait)
            }
            record.passcodeFailures += 1
            record.lastPasscodeFailure = clock.now
        }
        defer { nextAttempt += 1 }
        return .admitted(attempt: nextAttempt)
    }

    func passcodeRetryAfter(
        user: String, session: String?, purpose: AuditPolicy?, configuration: Configuration
    ) throws(StoreError) -> Int? {
        LockoutPolicy(configuration: self.configuration).passcodeRetryAfter(
            failures: record.passcodeFailures, lastFailure: record.lastPasscodeFailure, now: clock.now)
    }

    func finishAttempt(_ attempt: Int64, user: String, factor: Factor, result: AttemptResult) throws(StoreError) {
        guard factor == .passcode else { return }
        (record.passcodeFailures, record.lastPasscodeFailure) = CounterSettlement(result).settled(
            failures: record.passcodeFailures, lastFailure: record.lastPasscodeFailure, now: clock.now)
    }

    func recordOutcome(user: String, session: String?, policy: AuditPolicy?, factor: AuditFactor, outcome: AuditOutcome) throws(StoreError) {}

    func foldLogInBackground() -> HelperThread? { nil }

    func setEnrolled(_ enrolled: Bool, user: String, session: String?) throws(StoreError) {}

    func claimPrompt(
        session: String, user: String, pid: Int32, kind: PromptClaimKind, takingOver: (ProcessIdentity, PromptClaimKind?) -> Bool
    ) throws(StoreError) -> PromptClaim {
        .claimed
    }

    func releasePrompt(session: String, pid: Int32) throws(StoreError) {}

    /// No other process can unlock it here: locked until this gate's own evaluation succeeds.
    func sessionIsLocked(_ session: String) throws(StoreError) -> Bool { true }

    /// The store's session stays as it is: the gate ends, that is all.
    func unlockSession(_ session: String, user: String, after success: EvaluationSuccess) throws(StoreError) {}

    func lastLifecycleEvent(session: String) throws(StoreError) -> (event: String, cause: String?)? { nil }

    func gateStatus(
        user: String, session: String, record: UserRecord, configuration: Configuration, remoteHost: String?
    ) -> GateStatus {
        GateStatus(user: user, session: session, lines: [])
    }

    func gateNotice(_ notice: String?) -> String? {
        guard let notice else { return "The touchgate store cannot be read (\(storeProblem)); only the passcode can unlock." }
        return "\(notice) The store cannot be read; only the passcode can unlock."
    }
}
