/// Asks through the host's own conversation: each prompt and line goes to `pam_touchgate.so`,
/// which runs the host's `pam_conv` (sudo's prompt, a polkit agent, `sudo -S`'s standard input)
/// and sends the answer back.
///
/// The serial flow: it is no ``WaitingInput``, so a biometric try only shows the reader's lines
/// and waits; the passcode prompt comes after it.
final class ModulePrompts: PromptSource {
    let channel: ModuleChannel

    init(channel: ModuleChannel) {
        self.channel = channel
    }

    func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer {
        if let interruption = interrupter.pending { return .interrupted(interruption) }
        guard channel.send(echo ? .promptEchoOn : .promptEchoOff, text: TerminalText.sanitized(prompt, limit: 512)),
              var reply = channel.receive() else { return .interrupted(.system) }
        if let interruption = interrupter.pending {
            wipe(&reply.payload)
            return .interrupted(interruption)
        }
        switch reply.kind {
        case .answer:
            // The conversation (``Conversation``) refuses an overlong answer or one with a NUL.
            if reply.payload.count > LineReader.maximumLineLength || reply.payload.contains(0) {
                wipe(&reply.payload)
                return .invalid("The answer is longer than 512 bytes or holds a NUL byte.")
            }
            return .answer(reply.payload)
        case .noAnswer:
            return .endOfInput
        default:
            wipe(&reply.payload)
            return .interrupted(.system)
        }
    }

    func show(_ message: String) {
        channel.send(.info, text: TerminalText.sanitized(message))
    }

    /// Words each ``PromptEvent`` as info lines to the host, as the CLI does at a terminal.
    var wording: (PromptEvent) -> [String] = PromptWording.lines(for:)

    func notify(_ event: PromptEvent) {
        for line in wording(event) { show(line) }
    }
}
