/// When the biometric factor is refused and the passcode required, as iOS does: after a
/// restart, after an idle spell, when the passcode is old and the finger not fresh, after a
/// lockdown (the user's own or an administrator's), after too many biometric failures.
///
/// Free of I/O: fed the user's stored timestamps and locks (``UserRecord``), the current boot
/// id and the one injected clock's reading, it returns the reason or `nil` (the finger may be
/// tried). The evaluation asks it before any biometric PAM call, `status` shows it, and the PAM
/// module's helper uses it on the ledger; so every rule is written once.
public struct PasscodeRequirement: Sendable {
    /// Why the passcode is required; the raw value is what `--json` prints as `passcodeRequired`.
    public enum Reason: String, CaseIterable, Sendable, Hashable {
        /// No passcode success since the current boot.
        case restart
        /// No unlock of any kind for `passcode-after-idle-hours`.
        case idle
        /// The passcode unused for `passcode-max-age-hours` and the finger for `biometric-max-age-hours`.
        case age
        /// The user's own `touchgate lockdown`.
        case lockdown
        /// An administrator's `touchgate --system lockdown --user NAME`.
        case adminLock
        /// `max-biometric-failures` consecutive biometric failures.
        case failures

        /// The sentence the cover, the prompts and the error say, in iOS's words.
        public var sentence: String {
            switch self {
            case .restart: "Your passcode is required after a restart."
            case .idle: "Your passcode is required because the device has not been unlocked for a while."
            case .age: "Your passcode is required because it has not been used for a while."
            case .lockdown: "Your passcode is required after lockdown."
            case .adminLock: "Your passcode is required: an administrator locked the biometric factor."
            case .failures: "Your passcode is required after too many failed biometric attempts."
            }
        }
    }

    public let configuration: Configuration

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Why the passcode is required for `record` now, or `nil` when the finger may be tried.
    ///
    /// `bootID` is the current boot's id (`nil` when it cannot be read: then no passcode success
    /// can be shown to be of this boot, and the rule of the restart holds: fail closed). A clock
    /// that went backwards never makes a rule younger: the time the rules count from is the
    /// greatest of `now` and every stored time, so no age can shrink below what it was.
    public func reason(for record: UserRecord, bootID: String?, now: Double) -> Reason? {
        if record.adminLock { return .adminLock }
        if record.lockdown { return .lockdown }
        guard let passcode = record.lastPasscodeSuccess, let bootID, record.lastPasscodeBoot == bootID else {
            return .restart
        }
        if LockoutPolicy(configuration: configuration).biometricLockedOut(failures: record.biometricFailures) {
            return .failures
        }
        let stored = [record.lastSuccess, record.lastPasscodeFailure, record.lastBiometricSuccess, record.latestEntry, passcode]
            .compactMap { $0 }
        let now = stored.reduce(now, max)
        let lastUnlock = [record.lastSuccess, record.lastBiometricSuccess, passcode].compactMap { $0 }.reduce(passcode, max)
        if now - lastUnlock >= Self.seconds(hours: configuration.passcodeAfterIdleHours) { return .idle }
        let passcodeOld = now - passcode >= Self.seconds(hours: configuration.passcodeMaxAgeHours)
        let fingerOld = record.lastBiometricSuccess.map { now - $0 >= Self.seconds(hours: configuration.biometricMaxAgeHours) } ?? true
        if passcodeOld && fingerOld { return .age }
        return nil
    }

    private static func seconds(hours: Int) -> Double { Double(hours) * 3600 }
}
