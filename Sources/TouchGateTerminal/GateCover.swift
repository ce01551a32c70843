import Glibc
import TouchGateCore

/// The gate's hold on the terminal: the cover, the signal dispositions, the drawing and the
/// waits (``GateScreen``); what the gate does and when it ends is ``Gate``'s.
package final class GateCover: GateScreen {
    /// The lines above everything the gate shows (``header(user:label:)``), read once.
    private let header: [String]
    let scripted: Bool
    let interrupter: Interrupter
    private let cover: TerminalCover?
    private let prompts: any PromptSource

    package init(header: [String], prompts: any PromptSource, scripted: Bool, interrupter: Interrupter) {
        self.header = header
        self.scripted = scripted
        self.interrupter = interrupter
        self.prompts = prompts
        if scripted {
            SignalRelay.install([SIGINT, SIGTERM, SIGHUP, SIGUSR1], to: interrupter)
            cover = nil
        } else {
            // tmux unlocks the client whenever its lock-command exits: the keys that would end it do nothing.
            SignalRelay.ignore([SIGINT, SIGQUIT, SIGTSTP])
            SignalRelay.install([SIGTERM, SIGHUP, SIGUSR1], to: interrupter)
            cover = (prompts as? TerminalPrompts).map { TerminalCover(fileDescriptor: $0.fileDescriptor) }
            cover?.engage()
        }
        // After each wrong try the cover is drawn again, so its attempts left are the store's.
        if cover != nil, let terminal = prompts as? TerminalPrompts {
            let words = terminal.wording
            terminal.wording = { [weak self] event in
                // Drawn at once with the status, not kept for the next prompt: a countdown that
                // follows clears it, so it never shows stale above a later prompt.
                guard case .tryFailed = event, let self, let status = self.readStatus?() else { return words(event) }
                self.draw(self.header + status.lines + words(event))
                return []
            }
        }
    }

    /// The lines above everything the gate shows: that the session is locked, whose, on which
    /// host, and the session as the user knows it (`label`). Each reaches the terminal through
    /// ``TerminalText`` (``draw(_:notice:)``).
    package static func header(user: String, label: String) -> [String] {
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        let hostName = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return [
            "touchgate: this session is locked",
            "",
            "  user:    \(user)",
            "  host:    \(hostName)",
            "  session: \(label.escapedForMessage)",
            "",
        ]
    }

    /// Reads the status from the store, for the redraw after a wrong try (`nil`: not redrawn).
    package var readStatus: (() -> GateStatus?)?

    /// Draws `lines` on the cover (or on standard error with `-S`); the `notice` comes with the
    /// next prompt, so a notice such as "type again" shows only once the prompt reads.
    func draw(_ lines: [String], notice: String? = nil) {
        if let cover {
            cover.draw(lines)
        } else {
            for line in lines where !line.isEmpty { prompts.show(line) }
        }
        if let notice { prompts.show(notice) }
    }

    /// Gives the terminal back: the prompts' hold first, then the cover's modes and screen.
    package func release() {
        (prompts as? TerminalPrompts)?.release()
        cover?.restore()
    }

    package func showStatus(_ status: GateStatus, notice: String?) {
        draw(header + status.lines, notice: notice)
    }

    package func showWaitingForOwner(_ owner: Int32) {
        draw(header + ["Another terminal is unlocking this session (process \(owner)); waiting."]
             + (terminal == nil ? [] : ["Press Enter to unlock it here instead."]))
    }

    /// The terminal the cover reads keys from while another process holds the prompt.
    private var terminal: Int32? { scripted ? nil : (prompts as? TerminalPrompts)?.fileDescriptor }

    /// Also wakes for keys typed at the cover: Enter takes the prompt over (the user is at this
    /// terminal); any other key is read and dropped (it may be a secret: the buffer is wiped).
    package func waitForOwner(milliseconds: Int32) -> GateOwnerWait {
        guard let terminal else { return pause(milliseconds: milliseconds).map { .interrupted($0) } ?? .elapsed }
        var descriptors = [pollfd(fd: interrupter.fileDescriptor, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: terminal, events: Int16(POLLIN), revents: 0)]
        _ = poll(&descriptors, 2, milliseconds)
        if let interruption = interrupter.pending { return .interrupted(interruption) }
        guard descriptors[1].revents & Int16(POLLIN) != 0 else { return .elapsed }
        var bytes = [UInt8](repeating: 0, count: 256)
        defer { bytes.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) } }
        let count = bytes.withUnsafeMutableBytes { read(terminal, $0.baseAddress!, $0.count) }
        guard count > 0 else { return .elapsed }
        return bytes[..<count].contains(where: { $0 == 0x0D || $0 == 0x0A }) ? .takeOver : .elapsed
    }

    private func countdownLine(_ remaining: Int) -> String { "  Too many wrong passcodes: next try in \(remaining) s." }

    /// Echo stays off meanwhile (the cover's modes).
    package func showCountdown(_ seconds: Int) {
        draw(header + [countdownLine(seconds)])
    }

    package func redrawCountdown(_ seconds: Int) {
        cover?.redraw(row: header.count + 1, countdownLine(seconds))
    }

    /// The terminal the gate holds is gone: ending is all that is left (the session stays locked).
    /// A hangup signal does not always come: only the terminal's session leader is sure to get one.
    package var terminalGone: Bool { cover?.isHungUp ?? false }

    package func say(_ line: String) { prompts.show(line) }

    package func waitForEnter() -> GateEnterWait {
        switch prompts.ask("Press Enter to try again.", echo: false, interrupter: interrupter) {
        case .answer(_):
            // Whatever was typed is not used; it may have been a secret, and wipes itself.
            return .enter
        case .interrupted(let interruption):
            return .interrupted(interruption)
        case .invalid(_):
            return .interrupted(.user)
        case .endOfInput:
            return .endOfInput
        case .notInteractive:
            return .notInteractive
        }
    }

    /// The corresponding C function is `poll`.
    package func pause(milliseconds: Int32) -> Interruption? {
        var descriptor = pollfd(fd: interrupter.fileDescriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, milliseconds)
        return interrupter.pending
    }
}
