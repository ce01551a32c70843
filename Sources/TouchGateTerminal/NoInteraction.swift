/// The prompt source for `--no-interaction` and for processes without a terminal: never asks.
package final class NoInteraction: PromptSource {
    package init() {}
    package func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer { .notInteractive }
    package func show(_ message: String) {}
}
