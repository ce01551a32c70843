/// The lockout and throttling arithmetic, free of I/O and of the clock, so it can be tested exactly.
package struct LockoutPolicy: Sendable {
    package let configuration: Configuration

    package init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// After `max-biometric-failures` consecutive failures the biometric factor is locked out.
    package func biometricLockedOut(failures: Int) -> Bool {
        failures >= configuration.maxBiometricFailures
    }

    /// Whole seconds until the next passcode attempt is allowed, or `nil` when it is allowed now.
    ///
    /// After N consecutive failures the wait is `passcode-delays[N]` (the last entry repeats),
    /// counted from the latest failure.
    package func passcodeRetryAfter(failures: Int, lastFailure: Double?, now: Double) -> Int? {
        guard failures > 0, let lastFailure else { return nil }
        let delay = configuration.passcodeDelay(afterFailures: failures)
        guard delay > 0 else { return nil }
        // A clock that went backwards must not shorten the wait.
        let elapsed = max(0, now - lastFailure)
        let remaining = Double(delay) - elapsed
        return remaining > 0 ? Int(remaining.rounded(.up)) : nil
    }
}

extension LockoutPolicy {
    /// Biometric failures that can still be made before the lockout, after `failures`.
    package func biometricAttemptsLeft(failures: Int) -> Int {
        max(0, configuration.maxBiometricFailures - failures)
    }

    /// After `failures` consecutive passcode failures: how many more wrong passcodes can be tried
    /// before one is followed by a wait, and that wait in seconds; `nil` when no entry of
    /// `passcode-delays` from here on waits. 0 tries: the next try waits already.
    package func passcodeAttemptsBeforeDelay(failures: Int) -> (tries: Int, delaySeconds: Int)? {
        let failures = max(0, failures)
        // The last entry repeats: looking one past the list covers every later count.
        for extra in 0...(max(0, configuration.passcodeDelays.count - failures) + 1) {
            let delay = configuration.passcodeDelay(afterFailures: failures + extra)
            if delay > 0 { return (extra, delay) }
        }
        return nil
    }

    /// What is left of `factor` for a user with `record`, outside an evaluation.
    package func attemptsLeft(_ factor: Factor, record: UserRecord) -> AttemptsLeft {
        switch factor {
        case .biometric:
            return AttemptsLeft(inEvaluation: nil, beforeStop: biometricAttemptsLeft(failures: record.biometricFailures))
        case .passcode:
            let next = passcodeAttemptsBeforeDelay(failures: record.passcodeFailures)
            return AttemptsLeft(inEvaluation: nil, beforeStop: next?.tries, delaySeconds: next?.delaySeconds)
        }
    }
}
