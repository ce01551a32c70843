internal import CPAM
import TouchGateCore

/// The PAM outcomes of the biometric wait that the machine ends a wait with when the stack did
/// not decide, as libpam's statuses: the machine's own file imports nothing but the core, and
/// reads them here, beside libpam (`BiometricWaitStateMachineTests.theUndecidedOutcomesAreLibpamsStatuses`).
extension PAMOutcome {
    /// The conversation stopped the stack (`PAM_CONV_ERR`): a question not answered, a style
    /// refused, the fallback chosen during the wait.
    static let conversationFailed = PAMOutcome.failed(PAM_CONV_ERR)
    /// The wait ended without the stack's result (`PAM_ABORT`): a counted failure, never a success.
    static let aborted = PAMOutcome.failed(PAM_ABORT)
}
