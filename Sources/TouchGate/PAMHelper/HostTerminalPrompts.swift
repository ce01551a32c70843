import TouchGateCore
import TouchGateTerminal

/// The terminal flow as the host would have it: the reader's wait happens on the terminal, where
/// the password can be typed meanwhile (``WaitingInput``); every prompt and line that is not part
/// of such a wait goes through the host's conversation, so a biometric stack without a reader
/// leaves exactly the host's own prompt ("[sudo] password for alice:") and its own "Sorry".
///
/// Once a wait began, the rest of the evaluation stays on the terminal (Enter's password prompt,
/// the wait's outcome), as `touchgate auth` asks.
final class HostTerminalPrompts: PromptSource, WaitingInput {
    let terminal: TerminalPrompts
    let host: ModulePrompts
    /// A reader's wait began on the terminal.
    private var waited = false
    /// A biometric try runs: what its stack says goes to the terminal, with the wait.
    private var biometricTry = false

    init(terminal: TerminalPrompts, host: ModulePrompts) {
        self.terminal = terminal
        self.host = host
    }

    private var onTerminal: Bool { waited || biometricTry }

    func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer {
        if waited { return terminal.ask(prompt, echo: echo, interrupter: interrupter) }
        // What the terminal holds goes out before the host asks.
        terminal.flushMessages()
        return host.ask(prompt, echo: echo, interrupter: interrupter)
    }

    func show(_ message: String) {
        guard onTerminal else { return host.show(message) }
        for line in host.wording.takePending() { terminal.show(line) }
        terminal.show(message)
    }

    func notify(_ event: PromptEvent) {
        if case .tryStarted(let step) = event { biometricTry = step.factor == .biometric }
        let lines = host.wording.lines(for: event)
        for line in lines { waited ? terminal.show(line) : host.show(line) }
    }

    var waitingDescriptor: Int32 { terminal.waitingDescriptor }

    func peekLine(keepText: Bool) -> WaitingLine {
        terminal.peekLine(keepText: keepText)
    }

    func waitingStarted(typedLineIsPasscode: Bool) {
        waited = true
        for line in host.wording.takePending() { terminal.show(line) }
        terminal.waitingStarted(typedLineIsPasscode: typedLineIsPasscode)
    }
}
