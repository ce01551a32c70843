extension UserRecord {
    /// Whether the user has a biometric factor at all under `configuration`: enrolled, with a
    /// biometric stack named. The one answer for `status`'s and `auth`'s `attemptsLeft`, the
    /// gate's status lines and the evaluation's availability (which also asks whether the stack
    /// exists on this host, whether the session is remote and whether the factor is locked out).
    public func hasBiometricFactor(under configuration: Configuration) -> Bool {
        enrolled && !configuration.biometricService.isEmpty
    }
}
