internal import CPAM
import TouchGateCore

/// The raw PAM statuses behind each ``PAMOutcome``: the one reading of libpam's numbers, beside
/// the transaction that returns them, so the outcome itself (which the machines take) imports no
/// C module.
extension PAMOutcome {
    /// Reads `status`, as `pam_authenticate` returned it.
    public init(status: Int32) {
        switch status {
        case PAM_SUCCESS: self = .success
        case PAM_AUTH_ERR, PAM_MAXTRIES, PAM_CRED_INSUFFICIENT: self = .noMatch
        case PAM_AUTHINFO_UNAVAIL: self = .unavailable
        case PAM_MODULE_UNKNOWN, PAM_OPEN_ERR, PAM_SYMBOL_ERR: self = .moduleMissing
        case PAM_USER_UNKNOWN: self = .userUnknown
        default: self = .failed(status)
        }
    }

    /// The status this outcome stands for (for the biometric worker's report to its parent).
    public var status: Int32 {
        switch self {
        case .success: PAM_SUCCESS
        case .noMatch: PAM_AUTH_ERR
        case .unavailable: PAM_AUTHINFO_UNAVAIL
        case .moduleMissing: PAM_MODULE_UNKNOWN
        case .userUnknown: PAM_USER_UNKNOWN
        case .notStarted: PAM_ABORT
        case .failed(let status): status
        }
    }
}
