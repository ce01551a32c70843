/// What one `pam_authenticate` call (or a `pam_start` that failed) said: the only place a raw PAM
/// status is read.
///
/// Everything downstream (the settlement of a try, the outcome of an evaluation, the offline
/// passcode check, the biometric worker's report) works on these cases, so what counts as a
/// failure and what an unknown status means is decided once: an unknown status fails closed,
/// as a counted failure.
public enum PAMOutcome: Sendable, Hashable {
    /// `PAM_SUCCESS`: the stack accepted the credential.
    case success
    /// `PAM_AUTH_ERR`, `PAM_MAXTRIES`, `PAM_CRED_INSUFFICIENT`: a verdict on a credential given
    /// (a wrong passcode, a finger that did not match).
    case noMatch
    /// `PAM_AUTHINFO_UNAVAIL`: the stack cannot check now (a reader that failed, timed out or is
    /// gone; a remote session pam_fprintd refuses).
    case unavailable
    /// `PAM_MODULE_UNKNOWN`, `PAM_OPEN_ERR`, `PAM_SYMBOL_ERR`: a module of the stack is missing or
    /// cannot be loaded.
    case moduleMissing
    /// `PAM_USER_UNKNOWN`: the stack does not know the user.
    case userUnknown
    /// The stack could not be started (`pam_start` failed, or libpam could not be loaded).
    case notStarted
    /// Any other status (`PAM_SYSTEM_ERR`, `PAM_CONV_ERR`, `PAM_ABORT`, …): a broken stack, a
    /// counted failure that never unlocks. Holds the raw status for diagnostics.
    case failed(Int32)

    /// What ``notStarted`` can mean, in the words an error message gives.
    public static let notStartedCauses = "libpam.so.0 could not be loaded, or pam_start failed"

    /// True when the outcome is a verdict on a credential that was given, so the try counts as a
    /// failure; "cannot check" outcomes do not count.
    public var isCountedFailure: Bool {
        switch self {
        case .noMatch, .failed(_): true
        case .success, .unavailable, .moduleMissing, .userUnknown, .notStarted: false
        }
    }

    /// The outcome an evaluation ends with when `factor`'s stack said this, or `nil` for success.
    public func errorCode(for factor: Factor) -> AuthError.Code? {
        switch (self, factor) {
        case (.success, _): nil
        case (.unavailable, .biometric), (.moduleMissing, .biometric), (.notStarted, .biometric): .biometryNotAvailable
        case (.userUnknown, .biometric): .biometryNotEnrolled
        case (.userUnknown, .passcode), (.unavailable, .passcode): .passcodeNotSet
        // A passcode stack that cannot even load ends the passcode phase as passcodeNotSet (the
        // settlement sees it is not counted); the store-less check fails it closed.
        case (.moduleMissing, .passcode), (.notStarted, .passcode): .authenticationFailed
        case (.noMatch, _), (.failed(_), _): .authenticationFailed
        }
    }
}
