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
    /// Shows an informational or error line from the PAM stack (or from the gate).
    func show(_ message: String)
    /// Tells the source what the evaluation does, as a value (which try of which factor, what
    /// Enter and Ctrl-C do, how a try ended): the source words it, or ignores it (the default).
    func notify(_ event: PromptEvent)
}

extension PromptSource {
    public func notify(_ event: PromptEvent) {}
}

/// The prompt source for `--no-interaction` and for processes without a terminal: never asks.
public final class NoInteraction: PromptSource {
    public init() {}
    public func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer { .notInteractive }
    public func show(_ message: String) {}
}

/// What a prompt source has for a biometric wait that asks no question.
public enum WaitingLine: Sendable, Equatable {
    /// No whole line yet.
    case nothing
    /// An empty line, consumed: the fallback.
    case empty
    /// A non-empty line, left for the next prompt to read (under device-owner: the passcode).
    case text
    /// The input ended; the wait goes on for the sensor alone.
    case endOfInput
}

/// A prompt source that can be read while a biometric stack only waits for the sensor (`-S`).
public protocol WaitingInput: AnyObject {
    /// The descriptor to poll for input during the wait.
    var waitingDescriptor: Int32 { get }
    /// What has arrived on it, without blocking; with `keepText` false a non-empty line is discarded.
    func peekLine(keepText: Bool) -> WaitingLine
    /// The stack began to wait for the sensor: show what it said now, and what can be typed.
    func waitingStarted(typedLineIsPasscode: Bool)
}
