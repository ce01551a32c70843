internal import CPAM
import TouchGateCore

extension ModuleChannel {
    /// The PAM status `pam_touchgate.so` returns for the helper's outcome (`nil`: success): a
    /// wrong credential is `PAM_AUTH_ERR`, the lockout `PAM_MAXTRIES`, a cancel `PAM_CONV_ERR`,
    /// and a factor that cannot be used (or the fallback) `PAM_AUTHINFO_UNAVAIL`, so a stack can
    /// go on to its next module; anything else fails closed as `PAM_AUTH_ERR`.
    ///
    /// The module is C with no Swift runtime, so it holds this table itself
    /// (`status_for_outcome` in PAMModule/pam_touchgate.c); `ModuleProtocolTests` reads the C
    /// table and holds it to this one, one test per code.
    package static func pamStatus(for code: AuthError.Code?) -> Int32 {
        switch code {
        case nil: PAM_SUCCESS
        case .authenticationFailed?: PAM_AUTH_ERR
        case .biometryLockout?: PAM_MAXTRIES
        case .userCancel?, .systemCancel?, .appCancel?: PAM_CONV_ERR
        case .userFallback?, .passcodeNotSet?, .biometryNotAvailable?, .biometryNotEnrolled?, .notInteractive?: PAM_AUTHINFO_UNAVAIL
        default: PAM_AUTH_ERR
        }
    }
}
