/// What a prompt got back.
public enum PromptAnswer {
    /// A line, without its newline. The receiver wipes it after use.
    case answer([UInt8])
    /// End of input (Ctrl-D, a closed pipe).
    case endOfInput
    case interrupted(Interruption)
    /// No one can be asked: no terminal, or interaction is not allowed.
    case notInteractive
    /// The line was longer than a PAM response may be, or held a NUL byte; it was discarded.
    case invalid(String)
}

/// Where the answers to PAM's prompts come from.
public protocol PromptSource: AnyObject {
    /// Shows `prompt` and reads one answer; `echo` is false for secrets.
    func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer
    /// Shows an informational or error line from the PAM stack or from touchgate.
    func show(_ message: String)
}

/// The prompt source for `--no-interaction` and for processes without a terminal: never asks.
public final class NoInteraction: PromptSource {
    public init() {}
    public func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer { .notInteractive }
    public func show(_ message: String) {}
}
