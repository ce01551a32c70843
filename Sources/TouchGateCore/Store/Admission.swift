/// Whether a credential check may go ahead.
public enum Admission: Equatable, Sendable {
    /// Counted in advance as a failure; ``Store/finishAttempt(_:user:factor:result:)`` settles it.
    case admitted(attempt: Int64)
    /// Too many biometric failures: do not call PAM.
    case lockedOut
    /// A rule of ``PasscodeRequirement`` other than the failures' holds as the finger is admitted
    /// (a lockdown set since the evaluation read the record): do not call PAM.
    case passcodeRequired(PasscodeRequirement.Reason)
    /// Passcode attempts are throttled for this many more seconds: do not call PAM.
    case throttled(retryAfterSeconds: Int)
}
