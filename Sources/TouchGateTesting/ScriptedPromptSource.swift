import TouchGate

/// A prompt source that answers from a script, for tests: each prompt takes the next answer,
/// and the end of the script is end of input (userCancel), as with `touchgate -S`.
///
/// It records what it was asked and shown and every ``PromptEvent`` (which factor, which try,
/// what was left after a wrong one), so a test can assert on the words' inputs, not on text.
public final class ScriptedPromptSource: PromptSource, @unchecked Sendable {
    /// The answers not used yet.
    public private(set) var answers: [String]
    /// The stack's prompts, in order ("Password: ").
    public private(set) var asked: [String] = []
    /// The lines the stack (or the gate) showed.
    public private(set) var shown: [String] = []
    /// What the evaluations told, in order.
    public private(set) var events: [PromptEvent] = []

    public init(_ answers: [String]) {
        self.answers = answers
    }

    /// More answers, after those left.
    public func append(_ more: String...) { answers += more }

    public func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer {
        asked.append(prompt)
        if let interruption = interrupter.pending { return .interrupted(interruption) }
        guard !answers.isEmpty else { return .endOfInput }
        return .answer(SecureBytes(answers.removeFirst().utf8))
    }

    public func show(_ message: String) { shown.append(message) }

    public func notify(_ event: PromptEvent) { events.append(event) }

    /// The wrong tries told so far, with what was left after each.
    public var failures: [(Factor, AttemptsLeft)] {
        events.compactMap { event in
            if case .tryFailed(let factor, let left) = event { return (factor, left) }
            return nil
        }
    }
}
