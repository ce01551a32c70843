internal import CPAM

/// What a PAM message asks of the conversation, read once from its raw `msg_style`: the
/// in-process conversation, the biometric worker's relay and the worker's parent all go by it.
public enum PAMMessageStyle: Sendable, Equatable {
    /// `PAM_PROMPT_ECHO_OFF` / `PAM_PROMPT_ECHO_ON`: a question the user answers.
    case question(echo: Bool)
    /// `PAM_TEXT_INFO` / `PAM_ERROR_MSG`: a line to show (pam_fprintd's "Swipe …").
    case information
    /// Any other style (binary, radio prompts): refused rather than guessed at.
    case unsupported

    /// Reads a message's `msg_style` (or the style byte of a worker's message frame).
    public init(pamStyle: Int32) {
        switch pamStyle {
        case PAM_PROMPT_ECHO_OFF: self = .question(echo: false)
        case PAM_PROMPT_ECHO_ON: self = .question(echo: true)
        case PAM_TEXT_INFO, PAM_ERROR_MSG: self = .information
        default: self = .unsupported
        }
    }

    /// The raw style that reads back as this one (`PAM_TEXT_INFO` for a line), for the worker's
    /// message frames; `nil` for ``unsupported``, which is never relayed.
    var pamStyle: Int32? {
        switch self {
        case .question(echo: false): PAM_PROMPT_ECHO_OFF
        case .question(echo: true): PAM_PROMPT_ECHO_ON
        case .information: PAM_TEXT_INFO
        case .unsupported: nil
        }
    }
}
