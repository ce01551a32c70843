internal import CPAM
import Glibc

/// Answers one PAM transaction's prompts and remembers what happened in them.
///
/// PAM's own return code cannot say whether the user cancelled, chose the fallback or was never
/// asked for a secret, so the conversation keeps those facts for the caller.
final class Conversation {
    let prompts: PromptSource
    let interrupter: Interrupter
    /// At a biometric prompt an empty answer is the fallback button, not a credential.
    let emptyAnswerIsFallback: Bool

    /// A non-empty answer was handed to the PAM stack: the attempt checked a credential.
    private(set) var submittedAnswer = false
    private(set) var fallbackChosen = false
    private(set) var interruption: Interruption?
    private(set) var endOfInput = false
    private(set) var notInteractive = false
    private(set) var invalidAnswer: String?

    init(prompts: PromptSource, interrupter: Interrupter, emptyAnswerIsFallback: Bool) {
        self.prompts = prompts
        self.interrupter = interrupter
        self.emptyAnswerIsFallback = emptyAnswerIsFallback
    }

    /// True when the conversation stopped the transaction rather than the stack deciding.
    var stoppedByConversation: Bool {
        fallbackChosen || interruption != nil || endOfInput || notInteractive || invalidAnswer != nil
    }

    /// Answers `messages` in order; `nil` aborts the transaction with `PAM_CONV_ERR`.
    func respond(to messages: [(style: Int32, text: String)]) -> [[UInt8]?]? {
        var responses: [[UInt8]?] = []
        for message in messages {
            switch message.style {
            case PAM_PROMPT_ECHO_OFF, PAM_PROMPT_ECHO_ON:
                switch prompts.ask(message.text, echo: message.style == PAM_PROMPT_ECHO_ON, interrupter: interrupter) {
                case .answer(var bytes):
                    if bytes.isEmpty, emptyAnswerIsFallback {
                        fallbackChosen = true
                        wipeAll(&responses)
                        return nil
                    }
                    if !bytes.isEmpty { submittedAnswer = true }
                    responses.append(bytes)
                    wipe(&bytes)
                case .endOfInput:
                    endOfInput = true
                case .interrupted(let reason):
                    interruption = reason
                case .notInteractive:
                    notInteractive = true
                case .invalid(let reason):
                    invalidAnswer = reason
                }
                if stoppedByConversation {
                    wipeAll(&responses)
                    return nil
                }
            case PAM_ERROR_MSG, PAM_TEXT_INFO:
                prompts.show(message.text)
                responses.append(nil)
            default:
                // Binary and radio prompts are not supported: refuse rather than guess.
                wipeAll(&responses)
                return nil
            }
        }
        return responses
    }

    private func wipeAll(_ responses: inout [[UInt8]?]) {
        for index in responses.indices {
            if var bytes = responses[index] { wipe(&bytes); responses[index] = nil }
        }
    }
}

/// The C conversation function; `appdata` is the unretained ``Conversation``.
let conversationFunction: @convention(c) (
    Int32,
    UnsafeMutablePointer<UnsafePointer<pam_message>?>?,
    UnsafeMutablePointer<UnsafeMutablePointer<pam_response>?>?,
    UnsafeMutableRawPointer?
) -> Int32 = { count, messages, responses, appdata in
    guard count > 0, count <= PAM_MAX_NUM_MSG, let messages, let responses, let appdata else { return PAM_CONV_ERR }
    let conversation = Unmanaged<Conversation>.fromOpaque(appdata).takeUnretainedValue()
    let incoming = (0..<Int(count)).map { index -> (style: Int32, text: String) in
        let message = messages[index]!.pointee
        return (message.msg_style, message.msg.map { String(cString: $0) } ?? "")
    }
    guard var answers = conversation.respond(to: incoming) else { return PAM_CONV_ERR }
    guard let replies = calloc(Int(count), MemoryLayout<pam_response>.stride)?
        .bindMemory(to: pam_response.self, capacity: Int(count))
    else { return PAM_BUF_ERR }
    for index in answers.indices {
        guard var bytes = answers[index] else { continue }
        // PAM frees (and the modules wipe) what we hand over; our copy is wiped here.
        let copy = malloc(bytes.count + 1)!.bindMemory(to: CChar.self, capacity: bytes.count + 1)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { memcpy(copy, base, bytes.count) }
        }
        copy[bytes.count] = 0
        replies[index].resp = copy
        replies[index].resp_retcode = 0
        wipe(&bytes)
        answers[index] = nil
    }
    responses.pointee = replies
    return PAM_SUCCESS
}
