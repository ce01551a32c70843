/// What the gate's status says about the user's factors.
public struct GateStatus: Sendable, Equatable {
    public var user: String
    public var session: String
    /// The lines below the header: how to unlock, attempts left, lockout or throttling.
    public var lines: [String]
    /// The store cannot be read: the lines say so, and only the passcode can unlock.
    public var offline: Bool

    public init(user: String, session: String, lines: [String], offline: Bool = false) {
        self.user = user
        self.session = session
        self.lines = lines
        self.offline = offline
    }

    /// The status read from the store.
    public static func read(store: Store, user: String, session: String, remoteHost: String?) throws -> GateStatus {
        let record = try store.user(user)
        let configuration = try store.configuration(user: user)
        let lockout = LockoutPolicy(configuration: configuration)
        var lines: [String] = []
        if let host = remoteHost {
            lines.append("  Remote session (from \(host)): unlock with the passcode of \(user).")
        } else if !record.enrolled || configuration.biometricService.isEmpty {
            lines.append("  Unlock with the passcode of \(user).")
        } else if lockout.biometricLockedOut(failures: record.biometricFailures) {
            lines.append("  Biometrics are locked out after \(record.biometricFailures) failures: use the passcode.")
        } else {
            let left = configuration.maxBiometricFailures - record.biometricFailures
            lines.append("  Biometric attempts left: \(left) of \(configuration.maxBiometricFailures).")
            lines.append("  Press Enter at the biometric prompt to use the passcode instead.")
        }
        if let wait = lockout.passcodeRetryAfter(
            failures: record.passcodeFailures, lastFailure: record.lastPasscodeFailure, now: store.clock.now) {
            lines.append("  Too many wrong passcodes: next try in \(wait) s.")
        }
        lines.append("")
        return GateStatus(user: user, session: session, lines: lines)
    }
}
