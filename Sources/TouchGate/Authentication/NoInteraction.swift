/// The prompt source for `--no-interaction` and for processes without a terminal: never asks.
public final class NoInteraction: PromptSource {
    public init() {}
    public func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer { .notInteractive }
    public func show(_ message: String) {}
}
