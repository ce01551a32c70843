import Glibc
import TouchGateSystem
import TouchGateCore

/// `-S` mode: each answer is one line of standard input; prompts and messages go to standard
/// error, through ``TerminalText`` (standard error is often a terminal).
package final class StandardInputPrompts: PromptSource {
    private let reader: LineReader
    private let output: Int32

    /// Reads answers from `fileDescriptor` (standard input unless another pipe is given) and
    /// writes prompts and messages to `output` (standard error unless another is given: a
    /// program that embeds the library, or a test, keeps them off its own terminal).
    package init(fileDescriptor: Int32 = STDIN_FILENO, output: Int32 = STDERR_FILENO) {
        reader = LineReader(fileDescriptor: fileDescriptor)
        self.output = output
    }

    package func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer {
        writeAll(output, TerminalText.sanitized(prompt, limit: 512))
        let answer = reader.readLine(interrupter: interrupter)
        writeAll(output, "\n")
        return answer
    }

    package func show(_ message: String) {
        writeAll(output, TerminalText.sanitized(message) + "\n")
    }

    /// Words a ``PromptEvent`` as the lines to write; the CLI sets its own sentences. By default
    /// nothing is written.
    package var wording: (PromptEvent) -> [String] = { _ in [] }

    package func notify(_ event: PromptEvent) {
        for line in wording(event) { show(line) }
    }
}

extension StandardInputPrompts: WaitingInput {
    package var waitingDescriptor: Int32 { reader.fileDescriptor }
    package func peekLine(keepText: Bool) -> WaitingLine { reader.peekLine(keepText: keepText) }
    package func waitingStarted(typedLineIsPasscode: Bool) {}
}

/// Writes all of `text`, retrying short writes and interrupted calls.
///
/// The corresponding C function is `write`.
package func writeAll(_ fileDescriptor: Int32, _ text: String) {
    var bytes = Array(text.utf8)
    bytes.withUnsafeBytes { _ = writeFully(fileDescriptor, $0) }
    bytes.removeAll()
}
