import TouchGateCore
import TouchGateTerminal

/// Asks through the host's own conversation: each prompt and line goes to `pam_touchgate.so`,
/// which runs the host's `pam_conv` (sudo's prompt, a polkit agent, `sudo -S`'s standard input)
/// and sends the answer back.
///
/// The serial flow: it is no ``WaitingInput``, so a biometric try only shows the reader's lines
/// and waits; the passcode prompt comes after it.
final class ModulePrompts: PromptSource {
    let channel: ModuleChannel
    /// Which of the evaluation's events are shown, and when (``HostWording``).
    let wording: HostWording

    init(channel: ModuleChannel, wording: HostWording) {
        self.channel = channel
        self.wording = wording
    }

    func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer {
        if let interruption = interrupter.pending { return .interrupted(interruption) }
        for line in wording.takePending() { send(line) }
        guard channel.send(echo ? .promptEchoOn : .promptEchoOff, text: TerminalText.sanitized(prompt, limit: 512)),
              let reply = channel.receive() else { return .interrupted(.system) }
        // The reply's payload wipes itself on every path that does not hand it on.
        if let interruption = interrupter.pending { return .interrupted(interruption) }
        switch reply.kind {
        case .answer:
            // The conversation (``Conversation``) refuses an overlong answer or one with a NUL.
            if reply.payload.count > LineReader.maximumLineLength || reply.payload.contains(0) {
                return .invalid("The answer is longer than 512 bytes or holds a NUL byte.")
            }
            return .answer(reply.takePayload())
        case .noAnswer:
            return .endOfInput
        default:
            return .interrupted(.system)
        }
    }

    func show(_ message: String) {
        for line in wording.takePending() { send(line) }
        send(message)
    }

    private func send(_ line: String) {
        channel.send(.info, text: TerminalText.sanitized(line))
    }

    /// Words each ``PromptEvent`` as info lines to the host, as ``HostWording`` says.
    func notify(_ event: PromptEvent) {
        for line in wording.lines(for: event) { send(line) }
    }
}
