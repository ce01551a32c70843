import TouchGateCore
import TouchGateStore
import TouchGateSystem

/// The ledger a remote host's evaluation counts in: the store, with the passcode budget of remote
/// hosts (``Store/admitRemotePasscodeAttempt(user:session:purpose:configuration:)``) in place of
/// the local keyboard's.
///
/// Why apart: an SSH client that has not logged in yet can type wrong passwords as fast as it
/// likes; counted with the local user's, they would throttle that user's sudo and su at the
/// machine (pam_faillock's denial of service). Each budget is exact on its own (the same
/// write-ahead admission); the evaluation, its lockout arithmetic and its wording are unchanged:
/// they read the remote count through ``user(_:)``.
final class RemoteAttemptLedger: AttemptLedger {
    let store: Store

    init(store: Store) {
        self.store = store
    }

    var clock: any Clock { store.clock }

    func user(_ name: String) throws(StoreError) -> UserRecord {
        try store.remoteUser(name)
    }

    func configuration(user: String) throws(StoreError) -> Configuration {
        try store.configuration(user: user)
    }

    func admitAttempt(
        _ factor: Factor, user: String, session: String?, purpose: AuditPolicy?, configuration: Configuration
    ) throws(StoreError) -> Admission {
        switch factor {
        case .passcode:
            try store.admitRemotePasscodeAttempt(user: user, session: session, purpose: purpose, configuration: configuration)
        case .biometric:
            // Never asked (a remote host's biometric factor is not available): the store's rule.
            try store.admitAttempt(factor, user: user, session: session, purpose: purpose, configuration: configuration)
        }
    }

    /// The remote hosts' wait before their prompt opens, counting nothing (as
    /// ``Store/passcodeRetryAfter(user:session:purpose:configuration:)`` does for the local
    /// keyboard's budget): an audit entry `throttled` when they must wait, and no `users` row.
    func passcodeRetryAfter(
        user: String, session: String?, purpose: AuditPolicy?, configuration: Configuration
    ) throws(StoreError) -> Int? {
        let record = try store.remoteUser(user)
        guard let wait = LockoutPolicy(configuration: configuration).passcodeRetryAfter(
            failures: record.passcodeFailures, lastFailure: record.lastPasscodeFailure, now: clock.now) else { return nil }
        try store.recordOutcome(user: user, session: session, policy: purpose, factor: .passcode, outcome: .throttled)
        return wait
    }

    func finishAttempt(_ attempt: Int64, user: String, factor: Factor, result: AttemptResult) throws(StoreError) {
        switch factor {
        case .passcode: try store.finishRemotePasscodeAttempt(attempt, user: user, result: result)
        case .biometric: try store.finishAttempt(attempt, user: user, factor: factor, result: result)
        }
    }

    func recordOutcome(user: String, session: String?, policy: AuditPolicy?, factor: AuditFactor, outcome: AuditOutcome) throws(StoreError) {
        try store.recordOutcome(user: user, session: session, policy: policy, factor: factor, outcome: outcome)
    }

    func foldLogInBackground() -> HelperThread? { store.foldLogInBackground() }

    func setEnrolled(_ enrolled: Bool, user: String, session: String?) throws(StoreError) {
        try store.setEnrolled(enrolled, user: user, session: session)
    }

    func claimPrompt(
        session: String, user: String, pid: Int32, kind: PromptClaimKind, takingOver: (ProcessIdentity, PromptClaimKind?) -> Bool
    ) throws(StoreError) -> PromptClaim {
        try store.claimPrompt(session: session, user: user, pid: pid, kind: kind, takingOver: takingOver)
    }

    func releasePrompt(session: String, pid: Int32) throws(StoreError) {
        try store.releasePrompt(session: session, pid: pid)
    }

    func sessionIsLocked(_ session: String) throws(StoreError) -> Bool {
        try store.sessionIsLocked(session)
    }

    func unlockSession(_ session: String, user: String, after success: EvaluationSuccess) throws(StoreError) {
        try store.unlockSession(session, user: user, after: success)
    }

    func lastLifecycleEvent(session: String) throws(StoreError) -> (event: String, cause: String?)? {
        try store.lastLifecycleEvent(session: session)
    }

    func gateStatus(
        user: String, session: String, record: UserRecord, configuration: Configuration, remoteHost: String?
    ) -> GateStatus {
        store.gateStatus(user: user, session: session, record: record, configuration: configuration, remoteHost: remoteHost)
    }

    func gateNotice(_ notice: String?) -> String? { store.gateNotice(notice) }
}
