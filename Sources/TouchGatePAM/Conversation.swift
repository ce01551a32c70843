internal import CPAM
import Glibc
import TouchGateCore
import TouchGateSystem
import TouchGateTerminal

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

    /// The fallback was chosen while the stack waited without asking (an empty line, or the
    /// passcode typed under device-owner).
    func chooseFallback() {
        fallbackChosen = true
    }

    /// True when the conversation stopped the transaction rather than the stack deciding.
    var stoppedByConversation: Bool {
        fallbackChosen || interruption != nil || endOfInput || notInteractive || invalidAnswer != nil
    }

    /// What the conversation makes of one message.
    enum Reply: ~Copyable {
        /// Hand these bytes to the stack (they wipe themselves once it has its copy).
        case answer(SecureBytes)
        /// The message takes no answer (information and error texts).
        case nothing
        /// End the transaction with `PAM_CONV_ERR`: the properties say why.
        case stop
    }

    /// Answers one message.
    func respond(style: PAMMessageStyle, text: String) -> Reply {
        switch style {
        case .question(let echo):
            switch prompts.ask(text, echo: echo, interrupter: interrupter) {
            case .answer(let bytes):
                if bytes.isEmpty, emptyAnswerIsFallback {
                    fallbackChosen = true
                    return .stop
                }
                if !bytes.isEmpty { submittedAnswer = true }
                return .answer(bytes)
            case .endOfInput:
                endOfInput = true
            case .interrupted(let reason):
                interruption = reason
            case .notInteractive:
                notInteractive = true
            case .invalid(let reason):
                invalidAnswer = reason
            }
            return .stop
        case .information:
            prompts.show(text)
            // Shown when the module sends it: a module may wait next (for a finger, a key).
            (((prompts as? SubmittedAnswer)?.base ?? prompts) as? TerminalPrompts)?.flushMessages()
            return .nothing
        case .unsupported:
            // Binary and radio prompts are not supported: refuse rather than guess.
            return .stop
        }
    }
}

/// The C conversation function; `appdata` is the unretained ``Conversation``.
let conversationFunction: PAMTransaction.ConversationFunction = { count, messages, responses, appdata in
    guard let appdata else { return PAM_CONV_ERR }
    let conversation = Unmanaged<Conversation>.fromOpaque(appdata).takeUnretainedValue()
    return converse(count, messages, responses) { message in
        // A module's text is shown, never obeyed: its control characters are escaped here already.
        let text = message.msg.map { text in
            TerminalText.sanitized(bytes: UnsafeBufferPointer(
                start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: strlen(text)), limit: 512)
        } ?? ""
        return conversation.respond(style: PAMMessageStyle(pamStyle: message.msg_style), text: text)
    }
}

/// The body of a PAM conversation function, for any way of answering (in process, or relayed
/// by the biometric worker): checks PAM's arguments, asks `reply` for each message in turn and
/// hands PAM the answers; when `reply` stops, wipes and frees the answers given so far and
/// returns `PAM_CONV_ERR`.
///
/// One message at a time: each answer goes straight into PAM's array (and its bytes are wiped
/// once copied), and none waits in a copy of ours for the later messages.
func converse(
    _ count: Int32,
    _ messages: UnsafeMutablePointer<UnsafePointer<pam_message>?>?,
    _ responses: UnsafeMutablePointer<UnsafeMutablePointer<pam_response>?>?,
    reply: (pam_message) -> Conversation.Reply
) -> Int32 {
    guard count > 0, count <= PAM_MAX_NUM_MSG, let messages, let responses else { return PAM_CONV_ERR }
    guard let replies = calloc(Int(count), MemoryLayout<pam_response>.stride)?
        .bindMemory(to: pam_response.self, capacity: Int(count))
    else { return PAM_BUF_ERR }
    for index in 0..<Int(count) {
        switch reply(messages[index]!.pointee) {
        case .answer(let bytes):
            // PAM frees (and the modules wipe) what we hand over; ours wipes itself at the end of this case.
            replies[index].resp = pamResponse(copying: bytes)
            replies[index].resp_retcode = 0
        case .nothing:
            continue
        case .stop:
            discard(replies, count: Int(count))
            return PAM_CONV_ERR
        }
    }
    responses.pointee = replies
    return PAM_SUCCESS
}

/// A copy of `bytes` as PAM takes a response: `malloc`ed (PAM frees it), NUL-terminated, and kept
/// out of swap where RLIMIT_MEMLOCK allows, like the buffers the answer was read into.
func pamResponse(copying bytes: borrowing SecureBytes) -> UnsafeMutablePointer<CChar> {
    let copy = malloc(bytes.count + 1)!.bindMemory(to: CChar.self, capacity: bytes.count + 1)
    _ = mlock(copy, bytes.count + 1)
    bytes.withUnsafeBytes { source in
        if let base = source.baseAddress { memcpy(copy, base, source.count) }
    }
    copy[bytes.count] = 0
    return copy
}

/// Wipes and frees replies that will not reach PAM.
func discard(_ replies: UnsafeMutablePointer<pam_response>, count: Int) {
    for index in 0..<count {
        if let answer = replies[index].resp {
            explicit_bzero(answer, strlen(answer))
            free(answer)
        }
    }
    free(replies)
}
