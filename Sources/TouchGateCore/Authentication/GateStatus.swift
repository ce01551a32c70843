/// What the gate's status says about the user's factors.
package struct GateStatus: Sendable, Equatable {
    package var user: String
    package var session: String
    /// The lines below the header: how to unlock, attempts left, lockout or throttling.
    package var lines: [String]

    package init(user: String, session: String, lines: [String]) {
        self.user = user
        self.session = session
        self.lines = lines
    }

    /// The status of `user` (whose record is `record`) under `configuration`, at `now`.
    package init(user: String, session: String, record: UserRecord, configuration: Configuration, remoteHost: String?, now: Double,
         bootID: String?) {
        let lockout = LockoutPolicy(configuration: configuration)
        var lines: [String] = []
        if let host = remoteHost {
            lines.append("  Remote session (from \(host)): unlock with the passcode of \(user).")
        } else if !record.hasBiometricFactor(under: configuration) {
            lines.append("  Unlock with the passcode of \(user).")
        } else if let required = PasscodeRequirement(configuration: configuration).reason(for: record, bootID: bootID, now: now),
                  required != .failures {
            // As iOS's lock screen: why the finger is not asked for.
            lines.append("  \(required.sentence)")
        } else if lockout.biometricLockedOut(failures: record.biometricFailures) {
            lines.append("  Biometrics are locked out after \(record.biometricFailures) failures: use the passcode.")
        } else {
            let left = configuration.maxBiometricFailures - record.biometricFailures
            lines.append("  Biometric attempts left: \(left) of \(configuration.maxBiometricFailures).")
            lines.append("  Press Enter at the biometric prompt to use the passcode instead.")
        }
        if let wait = lockout.passcodeRetryAfter(
            failures: record.passcodeFailures, lastFailure: record.lastPasscodeFailure, now: now) {
            lines.append("  Too many wrong passcodes: next try in \(wait) s.")
        } else if record.passcodeFailures > 0, let next = lockout.passcodeAttemptsBeforeDelay(failures: record.passcodeFailures) {
            let tries = next.tries == 1 ? "1 try" : "\(next.tries) tries"
            lines.append("  Passcode attempts left before a wait of \(next.delaySeconds) s: \(tries).")
        }
        lines.append("")
        self.init(user: user, session: session, lines: lines)
    }
}
