import TouchGateCore
import TouchGateSystem

/// The answer submitted at touchgate's own passcode prompt, handed to the stack's first echo-off
/// prompt; every other prompt of the stack (a one-time code after the password) is asked live.
///
/// The try is admitted between the two: after Enter, before PAM sees the answer. So only a try
/// that was made is counted (a prompt left open counts nothing), and the count is still on the
/// disk before PAM checks anything. The answer (``SecureBytes``) wipes itself once the stack's
/// conversation copied it, and in any case when this source drops it or is freed.
package final class SubmittedAnswer: PromptSource {
    /// What touchgate's own passcode prompt says: pam_unix's words, which sudo and su replace
    /// with their own ("[sudo] password for …") as they do for pam_unix.
    package static let prompt = "Password: "

    /// The prompt source the stack's other prompts, messages and events go to.
    package let base: any PromptSource
    private var answer: PromptAnswer?

    package init(_ answer: consuming PromptAnswer, base: any PromptSource) {
        self.answer = consume answer
        self.base = base
    }

    /// Forgets the answer now (it wipes itself).
    package func wipe() {
        answer = nil
    }

    package func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer {
        // Handed over once: the conversation copies it into PAM's response and drops it.
        if !echo, let submitted = answer.take() { return submitted }
        return base.ask(prompt, echo: echo, interrupter: interrupter)
    }

    package func show(_ message: String) {
        base.show(message)
    }

    package func notify(_ event: PromptEvent) {
        base.notify(event)
    }
}
