/// What a PAM message asks of the conversation, read once from its raw `msg_style`: the
/// in-process conversation, the biometric worker's relay and the worker's parent all go by it.
package enum PAMMessageStyle: Sendable, Equatable {
    /// `PAM_PROMPT_ECHO_OFF` / `PAM_PROMPT_ECHO_ON`: a question the user answers.
    case question(echo: Bool)
    /// `PAM_TEXT_INFO` / `PAM_ERROR_MSG`: a line to show (pam_fprintd's "Swipe …").
    case information
    /// Any other style (binary, radio prompts): refused rather than guessed at.
    case unsupported
}
