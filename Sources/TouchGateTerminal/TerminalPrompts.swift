import Glibc
import TouchGateSystem
import TouchGateCore

/// Asks on the controlling terminal (`/dev/tty`), editing the line itself with echo off.
///
/// From its first prompt until ``release()`` it holds the terminal: echo and canonical input stay
/// off, also while PAM works or a countdown runs, so nothing typed in between shows in clear or
/// waits in the kernel's line to become the next answer; each prompt discards what was typed
/// before it. Backspace (the terminal's erase key), Ctrl-U (kill), Ctrl-W (word erase) and Enter
/// edit the line; Ctrl-D on an empty line is end of input. With ISIG off (the gate), Ctrl-C, Ctrl-\
/// and Ctrl-Z arrive as characters and cancel the line at once; with ISIG on (`auth`) they are
/// signals. After a stop (Ctrl-Z) and `fg`, the terminal modes are set again and the prompt is
/// shown again. A hang-up of the terminal is a system cancel, never end of input.
package final class TerminalPrompts: PromptSource {
    /// The terminal's descriptor, for drawing around the prompt.
    package let fileDescriptor: Int32
    /// Woken by the continue handler: the prompt is drawn again.
    private let redraw: (read: Int32, write: Int32)
    private var saved = termios()
    private var holding = false
    private var previousStop = sigaction()
    private var previousContinue = sigaction()
    private var handlesStop = false
    /// Lines from ``show(_:)`` not written yet.
    private var messages = ""
    /// The line being typed: one page, locked in memory where the limit allows, wiped after each prompt.
    private let line: LockedBuffer
    /// ``line`` holds a passcode typed while a biometric stack waited: the next prompt's answer.
    private var typedDuringWait = false

    /// Opens the controlling terminal (or the terminal at `path`: the PAM helper, which has no
    /// controlling terminal, opens the host's `PAM_TTY`), or returns `nil` when there is none.
    ///
    /// The corresponding C function is `open("/dev/tty")`.
    package init?(path: FilePath = "/dev/tty") {
        let descriptor = open(path.string, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        guard let pipe = try? SelfPipe() else {
            close(descriptor)
            return nil
        }
        fileDescriptor = descriptor
        redraw = (pipe.readEnd, pipe.writeEnd)
        line = LockedBuffer(capacity: LineReader.maximumLineLength + 1)
    }

    deinit {
        release()
        close(fileDescriptor)
        close(redraw.read)
        close(redraw.write)
    }

    /// Takes the terminal: echo and canonical input off (ISIG as it is), pending input discarded,
    /// and a stop (Ctrl-Z) handled so the terminal is given back while stopped and taken again on `fg`.
    ///
    /// The corresponding C functions are `tcgetattr`, `tcsetattr` and `sigaction`.
    package func hold() {
        guard !holding, tcgetattr(fileDescriptor, &saved) == 0 else { return }
        holding = true
        var modes = saved.lineEditingModes(keepingSignalKeys: true)
        tcsetattr(fileDescriptor, TCSAFLUSH, &modes)
        let state = HeldTerminal.shared
        state.pointee.original = saved
        state.pointee.held = modes
        state.pointee.redraw = redraw.write
        HeldTerminal.descriptor.store(fileDescriptor, ordering: .releasing)
        // A process that ignores SIGTSTP (the gate) is never stopped by it; one that does not is
        // stopped with the terminal's own modes back.
        sigaction(SIGTSTP, nil, &previousStop)
        handlesStop = unsafeBitCast(previousStop.__sigaction_handler.sa_handler, to: Int.self) == 0
        if handlesStop { install(SIGTSTP, heldStopHandler) }
        sigaction(SIGCONT, nil, &previousContinue)
        install(SIGCONT, heldContinueHandler)
    }

    /// Gives the terminal back as it was before ``hold()``, discarding what was typed meanwhile
    /// (it must not reach the shell as a command line). Also done when the prompts are freed.
    package func release() {
        writeMessages()
        // A passcode half typed while the reader waited, when a scan ended the wait first.
        line.wipe()
        typedDuringWait = false
        guard holding else { return }
        holding = false
        HeldTerminal.descriptor.store(-1, ordering: .releasing)
        if handlesStop { sigaction(SIGTSTP, &previousStop, nil) }
        sigaction(SIGCONT, &previousContinue, nil)
        tcsetattr(fileDescriptor, TCSAFLUSH, &saved)
    }

    package func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer {
        if typedDuringWait {
            // Typed (echo off) and ended with Enter while the reader waited: the answer already.
            typedDuringWait = false
            writeMessages()
            defer { line.wipe() }
            return .answer(line.copy())
        }
        hold()
        drainRedraw()
        tcflush(fileDescriptor, TCIFLUSH)
        // Keys a wait for the reader read without an Enter are type-ahead too: never part of this answer.
        line.wipe()
        writeMessages()
        let shown = TerminalText.sanitized(prompt, limit: 512)
        writeAll(fileDescriptor, shown)
        let answer = readLine(prompt: shown, echo: echo, interrupter: interrupter)
        line.wipe()
        return answer
    }

    /// Shows `message` with the next prompt (or when the terminal is released): what it says, such
    /// as "type again", is on the screen only once what is typed is read, never discarded.
    package func show(_ message: String) {
        messages += TerminalText.sanitized(message) + "\n"
    }

    /// Words a ``PromptEvent`` as the lines to show (with the next prompt); the CLI sets its own
    /// sentences. By default nothing is shown.
    package var wording: (PromptEvent) -> [String] = { _ in [] }

    package func notify(_ event: PromptEvent) {
        for line in wording(event) { show(line) }
    }

    /// Writes the lines ``show(_:)`` holds now, without waiting for the next prompt: what a PAM
    /// module says while it works (pam_fprintd's "Swipe …", then a wait) shows when it says it.
    package func flushMessages() {
        writeMessages()
    }

    private func writeMessages() {
        guard !messages.isEmpty else { return }
        writeAll(fileDescriptor, messages)
        messages = ""
    }

    /// The terminal's editing keys, from the modes held.
    private struct Keys {
        var erase: UInt8, kill: UInt8, wordErase: UInt8, endOfFile: UInt8
        var interrupt: UInt8, quit: UInt8, suspend: UInt8

        init(_ modes: termios) {
            var modes = modes
            (erase, kill, wordErase, endOfFile, interrupt, quit, suspend) = withUnsafeBytes(of: &modes.c_cc) { c in
                (c[Int(VERASE)], c[Int(VKILL)], c[Int(VWERASE)], c[Int(VEOF)], c[Int(VINTR)], c[Int(VQUIT)], c[Int(VSUSP)])
            }
        }

        /// A key that is set (0 disables a key, `_POSIX_VDISABLE`).
        static func matches(_ byte: UInt8, _ key: UInt8) -> Bool { key != 0 && byte == key }
    }

    /// Reads and edits one line; the bytes stay in ``line`` until the caller wipes it.
    private func readLine(prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer {
        let keys = Keys(saved)
        var overlong = false
        while true {
            if let interruption = interrupter.pending { return ended(.interrupted(interruption)) }
            // A tuple, not an array: no generic array type to build at the first prompt.
            var fds = (
                pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: interrupter.fileDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: redraw.read, events: Int16(POLLIN), revents: 0)
            )
            let ready = retryingInterrupts {
                withUnsafeMutableBytes(of: &fds) { poll($0.baseAddress!.assumingMemoryBound(to: pollfd.self), 3, -1) }
            }
            if ready < 0 {
                return ended(.interrupted(.system))
            }
            if fds.2.revents != 0 {
                // Back from a stop: the shell drew over the prompt and may have changed the modes.
                drainRedraw()
                line.wipe()
                overlong = false
                tcflush(fileDescriptor, TCIFLUSH)
                writeAll(fileDescriptor, "\n" + prompt)
                continue
            }
            if fds.1.revents != 0 { continue }
            guard fds.0.revents != 0 else { continue }
            var byte: UInt8 = 0
            let count = retryingInterrupts { read(fileDescriptor, &byte, 1) }
            if count < 0, errno == EAGAIN { continue }
            // With VMIN 1 a read returns 0 or fails only when the terminal hung up.
            guard count == 1 else { return ended(.interrupted(.system)) }
            defer { byte = 0 }
            switch byte {
            case 0x0A, 0x0D:
                writeAll(fileDescriptor, "\n")
                if let refusal = LineReader.refusal(of: line, overlong: overlong) { return refusal }
                return .answer(line.copy())
            case _ where Keys.matches(byte, keys.interrupt) || Keys.matches(byte, keys.quit)
                || Keys.matches(byte, keys.suspend):
                return ended(.interrupted(.user))
            case _ where Keys.matches(byte, keys.endOfFile):
                if line.count == 0, !overlong { return ended(.endOfInput) }
            case _ where Keys.matches(byte, keys.erase) || byte == 0x7F || byte == 0x08:
                if line.eraseCharacter(), echo { writeAll(fileDescriptor, "\u{8} \u{8}") }
            case _ where Keys.matches(byte, keys.kill):
                let erased = line.count
                line.wipe()
                overlong = false
                if echo, erased > 0 { writeAll(fileDescriptor, "\r\u{1B}[K" + prompt) }
            case _ where Keys.matches(byte, keys.wordErase):
                let erased = line.eraseWord()
                if echo { writeAll(fileDescriptor, String(repeating: "\u{8} \u{8}", count: erased)) }
            default:
                if overlong || line.count == LineReader.maximumLineLength + 1 {
                    overlong = true
                    line.wipe()
                } else {
                    line.append(byte)
                    if echo, byte >= 0x20, byte != 0x7F { _ = write(fileDescriptor, &byte, 1) }
                }
            }
        }
    }

    /// Ends the prompt's line on the screen and returns `answer`.
    private func ended(_ answer: consuming PromptAnswer) -> PromptAnswer {
        writeAll(fileDescriptor, "\n")
        return answer
    }

    private func drainRedraw() {
        var byte: UInt8 = 0
        while read(redraw.read, &byte, 1) == 1 {}
    }

    private func install(_ signal: Int32, _ handler: @convention(c) (Int32) -> Void) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(signal, &action, nil)
    }
}

/// SIGTSTP while a prompt holds the terminal: give the terminal its modes back, then stop as the
/// default action would (SIGTSTP is discarded for an orphaned process group, as it should be).
private let heldStopHandler: @convention(c) (Int32) -> Void = { _ in
    let savedErrno = errno
    let descriptor = HeldTerminal.descriptor.load(ordering: .acquiring)
    if descriptor >= 0 { tcsetattr(descriptor, TCSANOW, &HeldTerminal.shared.pointee.original) }
    var stop = sigaction()
    stop.__sigaction_handler.sa_handler = SIG_DFL
    sigemptyset(&stop.sa_mask)
    var ours = sigaction()
    sigaction(SIGTSTP, &stop, &ours)
    var pending = sigset_t()
    sigemptyset(&pending)
    sigaddset(&pending, SIGTSTP)
    pthread_sigmask(SIG_UNBLOCK, &pending, nil)
    raise(SIGTSTP)
    // Continued, or never stopped (an orphaned process group): take the terminal again either way.
    pthread_sigmask(SIG_BLOCK, &pending, nil)
    sigaction(SIGTSTP, &ours, nil)
    retakeHeldTerminal()
    errno = savedErrno
}

/// Sets the held modes again and wakes the prompt to draw itself again. Async-signal-safe.
private func retakeHeldTerminal() {
    let state = HeldTerminal.shared
    let descriptor = HeldTerminal.descriptor.load(ordering: .acquiring)
    guard descriptor >= 0 else { return }
    tcsetattr(descriptor, TCSANOW, &state.pointee.held)
    var byte: UInt8 = 1
    _ = write(state.pointee.redraw, &byte, 1)
}

/// SIGCONT: take the terminal again (the shell set its own modes meanwhile) and have the prompt drawn again.
private let heldContinueHandler: @convention(c) (Int32) -> Void = { _ in
    let savedErrno = errno
    retakeHeldTerminal()
    errno = savedErrno
}

extension TerminalPrompts: WaitingInput {
    package var waitingDescriptor: Int32 { fileDescriptor }

    /// Shows what the stack said at once (the messages otherwise wait for the next prompt) and what
    /// can be typed; takes the terminal (echo and canonical input off) and forgets type-ahead.
    package func waitingStarted(typedLineIsPasscode: Bool) {
        hold()
        tcflush(fileDescriptor, TCIFLUSH)
        line.wipe()
        typedDuringWait = false
        show(typedLineIsPasscode
            ? "Touch the fingerprint reader, or type your passcode and press Enter (Enter alone: the passcode prompt)."
            : "Touch the fingerprint reader (Enter: the fallback).")
        writeMessages()
    }

    /// Reads the keys typed so far during the wait, editing the line as a prompt does (echo off):
    /// Enter alone is the fallback; Enter after text keeps it as the passcode (`keepText`) or drops
    /// it; Ctrl-C, Ctrl-\ and Ctrl-Z as bytes (ISIG off, the gate) clear the line.
    package func peekLine(keepText: Bool) -> WaitingLine {
        let keys = Keys(saved)
        var descriptor = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        while poll(&descriptor, 1, 0) > 0 {
            var byte: UInt8 = 0
            let count = retryingInterrupts { read(fileDescriptor, &byte, 1) }
            if count < 0, errno == EAGAIN { continue }
            guard count == 1 else { return .endOfInput }
            defer { byte = 0 }
            switch byte {
            case 0x0A, 0x0D:
                if line.count == 0 { return .empty }
                if keepText, LineReader.refusal(of: line, overlong: false) == nil {
                    typedDuringWait = true
                    return .text
                }
                line.wipe()
            case _ where Keys.matches(byte, keys.interrupt) || Keys.matches(byte, keys.quit)
                || Keys.matches(byte, keys.suspend) || Keys.matches(byte, keys.kill):
                line.wipe()
            case _ where Keys.matches(byte, keys.erase) || byte == 0x7F || byte == 0x08:
                _ = line.eraseCharacter()
            case _ where Keys.matches(byte, keys.wordErase):
                _ = line.eraseWord()
            case _ where Keys.matches(byte, keys.endOfFile):
                continue
            default:
                if line.count <= LineReader.maximumLineLength { line.append(byte) }
            }
        }
        return .nothing
    }
}
