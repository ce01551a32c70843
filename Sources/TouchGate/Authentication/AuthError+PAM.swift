internal import CPAM

/// Which credential a PAM stack checks; the same PAM status means different things for each.
public enum Factor: String, Sendable {
    case biometric
    case passcode
}

extension AuthError {
    /// The outcome a PAM status stands for when `factor`'s stack returned it, or `nil` for `PAM_SUCCESS`.
    ///
    /// Everything that is not success or a known "cannot check" status fails closed as
    /// `authenticationFailed`: a broken stack never unlocks.
    init?(pamStatus: Int32, factor: Factor) {
        switch (pamStatus, factor) {
        case (PAM_SUCCESS, _):
            return nil
        case (PAM_AUTHINFO_UNAVAIL, .biometric), (PAM_MODULE_UNKNOWN, .biometric),
             (PAM_OPEN_ERR, .biometric), (PAM_SYMBOL_ERR, .biometric):
            self.init(.biometryNotAvailable)
        case (PAM_USER_UNKNOWN, .biometric):
            self.init(.biometryNotEnrolled)
        case (PAM_USER_UNKNOWN, .passcode), (PAM_AUTHINFO_UNAVAIL, .passcode):
            self.init(.passcodeNotSet)
        default:
            self.init(.authenticationFailed)
        }
    }

    /// True when the status is a verdict on a credential that was given, so the attempt counts as
    /// a failure; statuses that say "cannot check" do not count.
    static func isCountedFailure(pamStatus: Int32) -> Bool {
        switch pamStatus {
        case PAM_SUCCESS, PAM_AUTHINFO_UNAVAIL, PAM_MODULE_UNKNOWN, PAM_OPEN_ERR, PAM_SYMBOL_ERR, PAM_USER_UNKNOWN:
            false
        default:
            true
        }
    }
}
