import TouchGateCore


/// Where the answers to PAM's prompts come from.
public protocol PromptSource: AnyObject {
    /// Shows `prompt` and reads one answer; `echo` is false for secrets.
    func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer
    /// Shows an informational or error line from the PAM stack (or from the gate).
    func show(_ message: String)
    /// Tells the source what the evaluation does, as a value (which try of which factor, what
    /// Enter and Ctrl-C do, how a try ended): the source words it, or ignores it (the default).
    func notify(_ event: PromptEvent)
}

extension PromptSource {
    public func notify(_ event: PromptEvent) {}
}
