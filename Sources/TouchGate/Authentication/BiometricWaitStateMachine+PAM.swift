internal import CPAM

/// The PAM outcomes of the biometric wait, on the driver's side, so that the machine imports no
/// C module: the two outcomes the machine ends a wait with when the stack did not decide.
extension PAMOutcome {
    /// The conversation stopped the stack (`PAM_CONV_ERR`): a question not answered, a style
    /// refused, the fallback chosen during the wait.
    static let conversationFailed = PAMOutcome(status: PAM_CONV_ERR)
    /// The wait ended without the stack's result (`PAM_ABORT`): a counted failure, never a success.
    static let aborted = PAMOutcome.failed(PAM_ABORT)
}
