internal import CPAM

/// The PAM vocabulary of the biometric wait, on the driver's side, so that the machine imports
/// no C module: the style byte of the worker's message frames, and the two outcomes the machine
/// ends a wait with when the stack did not decide.
extension BiometricWaitStateMachine.MessageStyle {
    /// Reads the style byte of a message frame.
    public init(pamStyle: Int32) {
        switch pamStyle {
        case PAM_PROMPT_ECHO_OFF: self = .question(echo: false)
        case PAM_PROMPT_ECHO_ON: self = .question(echo: true)
        case PAM_TEXT_INFO, PAM_ERROR_MSG: self = .information
        default: self = .unsupported
        }
    }
}

extension PAMOutcome {
    /// The conversation stopped the stack (`PAM_CONV_ERR`): a question not answered, a style
    /// refused, the fallback chosen during the wait.
    static let conversationFailed = PAMOutcome(status: PAM_CONV_ERR)
    /// The wait ended without the stack's result (`PAM_ABORT`): a counted failure, never a success.
    static let aborted = PAMOutcome.failed(PAM_ABORT)
}
