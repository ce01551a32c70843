/// The lockout and throttling arithmetic, free of I/O and of the clock, so it can be tested exactly.
public struct LockoutPolicy: Sendable {
    public let configuration: Configuration

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// After `max-biometric-failures` consecutive failures the biometric factor is locked out.
    public func biometricLockedOut(failures: Int) -> Bool {
        failures >= configuration.maxBiometricFailures
    }

    /// Whole seconds until the next passcode attempt is allowed, or `nil` when it is allowed now.
    ///
    /// After N consecutive failures the wait is `passcode-delays[N]` (the last entry repeats),
    /// counted from the latest failure.
    public func passcodeRetryAfter(failures: Int, lastFailure: Double?, now: Double) -> Int? {
        guard failures > 0, let lastFailure else { return nil }
        let delay = configuration.passcodeDelay(afterFailures: failures)
        guard delay > 0 else { return nil }
        // A clock that went backwards must not shorten the wait.
        let elapsed = max(0, now - lastFailure)
        let remaining = Double(delay) - elapsed
        return remaining > 0 ? Int(remaining.rounded(.up)) : nil
    }
}
