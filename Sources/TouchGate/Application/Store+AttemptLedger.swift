import TouchGateCore
import TouchGateStore
import TouchGateSystem

/// The store as the durable ``AttemptLedger``: what every process of the user counts in, and
/// where a gate claims and unlocks its session.
extension Store: AttemptLedger {
    func claimPrompt(
        session: String, user: String, pid: Int32, kind: PromptClaimKind, takingOver: (ProcessIdentity, PromptClaimKind?) -> Bool
    ) throws(StoreError) -> PromptClaim {
        try perform {
            try claimPrompt(session: session, user: user, pid: pid, kind: kind.rawValue) { owner, ownerKind in
                takingOver(owner, ownerKind.flatMap(PromptClaimKind.init(rawValue:)))
            }
        }
    }

    func sessionIsLocked(_ session: String) throws(StoreError) -> Bool {
        try self.session(session)?.lifecycle.locked != false
    }

    /// Unlocks `session` of `user` after `success` (of that user: another's unlocks nothing) and
    /// shows it, in one transaction.
    /// An error other than the file's (an invalid transition) is an internal error.
    public func unlockSession(_ session: String, user: String, after success: EvaluationSuccess) throws(StoreError) {
        guard success.user == user else { return }
        try perform { try updateSession(session, user: user) { $0.lifecycle.unlock(success) } }
    }

    func gateStatus(
        user: String, session: String, record: UserRecord, configuration: Configuration, remoteHost: String?
    ) -> GateStatus {
        GateStatus(user: user, session: session, record: record, configuration: configuration, remoteHost: remoteHost,
                   now: clock.now, bootID: BootID.current())
    }

    func gateNotice(_ notice: String?) -> String? { notice }
}
