internal import CPAM
import TouchGateCore

/// The raw `msg_style` values behind each ``PAMMessageStyle``, beside the conversation that reads
/// them, so the style itself (which the biometric wait's machine takes) imports no C module.
extension PAMMessageStyle {
    /// Reads a message's `msg_style` (or the style byte of a worker's message frame).
    package init(pamStyle: Int32) {
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
