import TouchGateCore
import TouchGateStore
import TouchGateSystem

/// ``PasscodeRequirement`` asked of a ledger: the rule is the core's, the record, the settings,
/// the clock and this boot's id are the ledger's (the store's, or the offline one's).
extension AttemptLedger {
    /// Why the passcode is required for `user` now (``PasscodeRequirement``), from `record` and
    /// `configuration` as just read, this boot's id and the ledger's clock; `nil` when the
    /// finger may be tried.
    func passcodeRequired(record: UserRecord, configuration: Configuration) -> PasscodeRequirement.Reason? {
        PasscodeRequirement(configuration: configuration).reason(for: record, bootID: BootID.current(), now: clock.now)
    }
}

extension Store {
    /// Why the passcode is required for `user` now, or `nil` when the finger may be tried
    /// (what `touchgate status` shows).
    package func passcodeRequired(user: String) throws(StoreError) -> PasscodeRequirement.Reason? {
        passcodeRequired(record: try self.user(user), configuration: try configuration(user: user))
    }
}
