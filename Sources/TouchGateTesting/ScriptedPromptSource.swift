import Synchronization
import TouchGate

/// A prompt source that answers from a script, for tests: each prompt takes the next answer,
/// and the end of the script is end of input (userCancel), as with `touchgate -S`.
///
/// It records what it was asked and shown and every ``PromptEvent`` (which factor, which try,
/// what was left after a wrong one), so a test can assert on the words' inputs, not on text.
/// The script and the records sit under a lock: a test may read them from another thread while
/// an evaluation asks.
public final class ScriptedPromptSource: PromptSource, Sendable {
    private struct Script {
        var answers: [String]
        var asked: [String] = []
        var shown: [String] = []
        var events: [PromptEvent] = []
    }

    private let script: Mutex<Script>

    /// The answers not used yet.
    public var answers: [String] { script.withLock { $0.answers } }
    /// The stack's prompts, in order ("Password: ").
    public var asked: [String] { script.withLock { $0.asked } }
    /// The lines the stack (or the gate) showed.
    public var shown: [String] { script.withLock { $0.shown } }
    /// What the evaluations told, in order.
    public var events: [PromptEvent] { script.withLock { $0.events } }

    public init(_ answers: [String]) {
        script = Mutex(Script(answers: answers))
    }

    /// More answers, after those left.
    public func append(_ more: String...) { script.withLock { $0.answers += more } }

    public func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer {
        script.withLock { $0.asked.append(prompt) }
        if let interruption = interrupter.pending { return .interrupted(interruption) }
        guard let next = script.withLock({ $0.answers.isEmpty ? nil : $0.answers.removeFirst() }) else { return .endOfInput }
        return .answer(SecureBytes(next.utf8))
    }

    public func show(_ message: String) { script.withLock { $0.shown.append(message) } }

    public func notify(_ event: PromptEvent) { script.withLock { $0.events.append(event) } }

    /// The wrong tries told so far, with what was left after each.
    public var failures: [(Factor, AttemptsLeft)] {
        events.compactMap { event in
            if case .tryFailed(let factor, let left) = event { return (factor, left) }
            return nil
        }
    }
}
