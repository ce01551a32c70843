import Glibc

/// Asks on the controlling terminal (`/dev/tty`), with echo off for secrets.
public final class TerminalPrompts: PromptSource {
    /// The terminal's descriptor, for drawing around the prompt.
    public let fileDescriptor: Int32
    private let reader: LineReader

    /// Opens the controlling terminal, or returns `nil` when the process has none.
    ///
    /// The corresponding C function is `open("/dev/tty")`.
    public init?() {
        let descriptor = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        fileDescriptor = descriptor
        reader = LineReader(fileDescriptor: descriptor)
    }

    deinit {
        close(fileDescriptor)
    }

    public func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer {
        writeAll(fileDescriptor, prompt)
        var saved = termios()
        let haveTermios = tcgetattr(fileDescriptor, &saved) == 0
        if haveTermios, !echo {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            quiet.c_lflag |= tcflag_t(ECHONL)
            tcsetattr(fileDescriptor, TCSANOW, &quiet)
        }
        var answer = reader.readLine(interrupter: interrupter)
        if haveTermios, !echo {
            tcsetattr(fileDescriptor, TCSANOW, &saved)
        }
        // With ISIG off (the gate), Ctrl-C, Ctrl-\ and Ctrl-Z arrive as characters: they cancel the line.
        if case .answer(var bytes) = answer, bytes.contains(where: { [0x03, 0x1C, 0x1A].contains($0) }) {
            wipe(&bytes)
            answer = .interrupted(.user)
        }
        if case .answer = answer {} else { writeAll(fileDescriptor, "\n") }
        return answer
    }

    public func show(_ message: String) {
        writeAll(fileDescriptor, message + "\n")
    }
}
