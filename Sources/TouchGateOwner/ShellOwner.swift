import Glibc
import TouchGate
import TouchGateSystem

/// The driver of a ``ShellOwnerStateMachine``: one loop (`poll`) over the outer terminal
/// (standard input), the program's pseudo-terminal, a signal pipe and the owner's channel, with
/// the idle time as its timeout. No process is started per command or per key: only the program
/// and, while locked, the gate.
package final class ShellOwner {
    private let session: ShellOwnerSession
    private var machine = ShellOwnerStateMachine()
    private let outer = STDIN_FILENO
    private let screenOut = STDOUT_FILENO
    private var saved = termios()
    private var haveSaved = false
    private var terminal: PseudoTerminal?
    private var screen: InnerScreen
    private var focus = FocusReports()
    private var gate: pid_t?
    /// When the running gate started (the state machine counts gates that end at once).
    private var gateStartedAt: Double?
    private var gateDueAt: Double?
    /// Clients of the channel waiting for their answer until the cover is up.
    private var waitingClients: [Int32] = []
    private var pendingInput: [UInt8] = []
    private var outputBuffer = [UInt8](repeating: 0, count: 65536)
    private var signalRead: Int32 = -1
    private var exitStatus: Int32?
    private var hangUpDeadline: Double?
    /// The owner's exit status when a gate ended it (the gate's), instead of the program's.
    private var forcedStatus: Int32?
    /// The line said on standard error once the program, hung up after such a gate, has ended.
    private var giveUpMessage: String?
    /// When the settings are read again (while the session is shown).
    private var settingsDueAt: Double?
    /// ``secondsSuspended()`` when the loop last looked: more means the machine slept since.
    private var suspendedSoFar = ShellOwner.secondsSuspended()

    package init(session: ShellOwnerSession) {
        self.session = session
        let size = PseudoTerminal.size(of: STDIN_FILENO)
        screen = InnerScreen(rows: Int32(size.ws_row), columns: Int32(size.ws_col))
    }

    private var now: Double { session.clock.now }

    /// Runs until the program ends; returns its exit status (128 + the signal that ended it).
    package func run() -> Int32 {
        installSignals()
        signal(SIGPIPE, SIG_IGN)
        holdTerminal()
        defer { releaseTerminal() }
        let start = machine.start(now: now)
        switch start {
        case .checkSession(let reason): check(reason)
        }
        while true {
            if let status = exitStatus, terminal == nil { return status }
            step()
        }
    }

    // MARK: - The terminal

    private func holdTerminal() {
        if tcgetattr(outer, &saved) == 0 {
            haveSaved = true
            applyRawMode()
        }
        writeText(FocusReports.enable)
    }

    /// The outer terminal in raw mode: every key is a byte for the program (Ctrl-C included: the
    /// program's own terminal turns it into its signal), nothing echoes here.
    private func applyRawMode() {
        guard haveSaved else { return }
        var raw = saved
        cfmakeraw(&raw)
        tcsetattr(outer, TCSADRAIN, &raw)
    }

    private func releaseTerminal() {
        writeText(FocusReports.disable)
        if haveSaved { tcsetattr(outer, TCSADRAIN, &saved) }
    }

    private func writeText(_ text: String) { writeAll(screenOut, text) }

    private func writeBytes(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let written = retryingInterrupts { write(screenOut, bytes.baseAddress! + offset, bytes.count - offset) }
            if written < 0 {
                if errno == EAGAIN {
                    var descriptor = pollfd(fd: screenOut, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&descriptor, 1, 100)
                    continue
                }
                return
            }
            offset += written
        }
    }

    private var terminalGone: Bool {
        var modes = termios()
        return tcgetattr(outer, &modes) != 0 && (errno == EIO || errno == ENOTTY || errno == EBADF)
    }

    // MARK: - Signals

    private func installSignals() {
        guard let pipe = try? SelfPipe() else { return }
        signalRead = pipe.readEnd
        pipe.relay([SIGCHLD, SIGWINCH, SIGTERM, SIGHUP, SIGUSR1], restart: true)
    }

    // MARK: - The loop

    private func step() {
        var descriptors: [pollfd] = []
        func watch(_ descriptor: Int32, _ events: Int32) -> Int? {
            guard descriptor >= 0 else { return nil }
            descriptors.append(pollfd(fd: descriptor, events: Int16(events), revents: 0))
            return descriptors.count - 1
        }
        let signals = watch(signalRead, POLLIN)
        let channel = watch(session.channel, POLLIN)
        let input = machine.readsInput && pendingInput.isEmpty ? watch(outer, POLLIN) : nil
        // The program is read while the screen model's queue has room; else the model's thread
        // says when it has (the program's pseudo-terminal holds its output meanwhile).
        let room = terminal == nil || screen.hasRoom
        let master = terminal.map { watch($0.master, (room ? POLLIN : 0) | (pendingInput.isEmpty ? 0 : POLLOUT)) } ?? nil
        let wake = room ? nil : watch(screen.wake, POLLIN)
        if machine.readsInput, settingsDueAt == nil { settingsDueAt = now + ShellOwnerStateMachine.settingsReadSeconds }
        if !machine.readsInput { settingsDueAt = nil }
        var deadline = [machine.idleDeadline, gateDueAt, hangUpDeadline, settingsDueAt].compactMap { $0 }.min()
        if terminal == nil, exitStatus != nil { deadline = now }
        let timeout: Int32 = deadline.map { Int32(clamping: Int(max(0, ($0 - now) * 1000).rounded(.up))) } ?? -1
        let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
        if ready < 0, Errno.current != .interrupted { hangUp(); return }
        // The machine slept meanwhile: before any key that woke this loop goes anywhere, the
        // session's lock is read again, whoever did or did not reach this owner at the suspend.
        let slept = Self.secondsSuspended()
        if slept - suspendedSoFar > 1 {
            suspendedSoFar = slept
            lookAtSession()
        }

        if let signals, descriptors[signals].revents != 0 { handleSignals() }
        if let wake, descriptors[wake].revents != 0 { screen.clearWake() }
        if let channel, descriptors[channel].revents & Int16(POLLIN) != 0 { acceptClients() }
        if let master, terminal != nil {
            let events = descriptors[master].revents
            if events & Int16(POLLOUT) != 0 { flushInput() }
            if events & Int16(POLLIN | POLLHUP | POLLERR) != 0 { readProgram() }
        }
        if let input, descriptors[input].revents != 0 { readOuter(descriptors[input].revents) }
        timers()
    }

    private func timers() {
        let time = now
        if let due = gateDueAt, time >= due {
            gateDueAt = nil
            startGate()
        }
        if let deadline = hangUpDeadline, time >= deadline, let terminal {
            // The program did not end at the hang-up: it ends now, with everything it started.
            kill(-terminal.program, SIGKILL)
            kill(terminal.program, SIGKILL)
            hangUpDeadline = nil
        }
        if let due = settingsDueAt, time >= due {
            settingsDueAt = nil
            machine.settingsRead(idleSeconds: session.idleSeconds())
        }
        if let deadline = machine.idleDeadline, time >= deadline {
            switch machine.timerFired(now: time) {
            case .checkSession(let reason): check(reason)
            case .none: break
            }
        }
    }

    private func handleSignals() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while true {
            let count = read(signalRead, &bytes, bytes.count)
            guard count > 0 else { break }
            for byte in bytes.prefix(count) {
                switch Int32(byte) {
                case SIGCHLD: reapChildren()
                case SIGWINCH:
                    if machine.resized() == .resizeProgram { resize() }
                case SIGTERM, SIGHUP: hangUp()
                // The watcher's lock when the channel could not confirm (``OwnerChannel/nudge(_:uid:)``):
                // only the user's own processes (and root) can send it.
                case SIGUSR1: lockRequested()
                default: break
                }
            }
        }
        // A child may end between two signals' deliveries: look again whatever came.
        reapChildren()
    }

    private func resize() {
        let size = PseudoTerminal.size(of: outer)
        terminal?.resize(size)
        screen.resize(rows: Int32(size.ws_row), columns: Int32(size.ws_col))
    }

    // MARK: - Input

    private func readOuter(_ events: Int16) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = retryingInterrupts { read(outer, &buffer, buffer.count) }
        if count < 0, errno == EAGAIN { return }
        guard count > 0 else {
            // End of file or EIO: the terminal hung up.
            hangUp()
            return
        }
        let filtered = focus.filter(buffer[0..<count])
        explicit_bzero(&buffer, buffer.count)
        if let focused = filtered.focus {
            if case .record(let event) = machine.focusChanged(focused: focused) { session.record(event) }
            // Any focus report makes the owner read its session's lock again: one whose `lock`
            // never arrived (no watcher, a channel that failed) is covered when the user comes back.
            lookAtSession()
        }
        guard !filtered.bytes.isEmpty else { return }
        switch machine.input(now: now) {
        case .relay:
            pendingInput += filtered.bytes
            flushInput()
        case .drop:
            break
        }
    }

    private func flushInput() {
        guard let terminal, !pendingInput.isEmpty else { return }
        let written = pendingInput.withUnsafeBytes { write(terminal.master, $0.baseAddress, $0.count) }
        if written > 0 { pendingInput.removeFirst(written) }
    }

    // MARK: - Output

    /// Reads what the program wrote, as much as is there (up to 64 KiB), then passes it on in
    /// one piece: to the outer terminal and the screen model's queue while shown, to the model
    /// only while covered.
    /// `toTheEnd`: read everything there is (the program ended), room in the model or not.
    private func readProgram(toTheEnd: Bool = false) {
        guard let terminal else { return }
        while true {
            var filled = 0
            while filled < outputBuffer.count {
                let count = retryingInterrupts {
                    outputBuffer.withUnsafeMutableBytes { read(terminal.master, $0.baseAddress! + filled, $0.count - filled) }
                }
                guard count > 0 else { break }
                filled += count
            }
            guard filled > 0 else { return }
            outputBuffer.withUnsafeBytes { all in
                let bytes = UnsafeRawBufferPointer(rebasing: all[0..<filled])
                switch machine.output() {
                case .showAndRecord:
                    writeBytes(bytes)
                    screen.show(bytes)
                    if focus.programWrote(bytes) { writeText(FocusReports.enable) }
                case .recordOnly:
                    _ = focus.programWrote(bytes)
                    // The outer terminal cannot answer the program's questions now: the model does.
                    let answers = screen.record(bytes)
                    if !answers.isEmpty { answers.withUnsafeBytes { _ = write(terminal.master, $0.baseAddress, $0.count) } }
                }
            }
            if filled < outputBuffer.count || (!toTheEnd && !screen.hasRoom) { return }
        }
    }

    // MARK: - Checks and the gate

    private func check(_ reason: ShellOwnerStateMachine.CheckReason) {
        checked(session.check(reason))
    }

    /// Carries out the store's answer to a check or a look.
    private func checked(_ answer: (locked: Bool, idleSeconds: Int)) {
        switch machine.checked(locked: answer.locked, idleSeconds: answer.idleSeconds, now: now) {
        case .cover: cover()
        case .startProgram: startProgram()
        case .none: break
        }
        answerClients()
    }

    /// Keys stop at once (none waiting is delivered), the screen is blanked, and the gate runs.
    private func cover() {
        pendingInput.removeAll()
        writeText(FocusReports.disable + "\u{1B}[?1049h\u{1B}[H\u{1B}[2J\u{1B}[3J")
        startGate()
    }

    private func startGate() {
        // The gate gets the terminal's own modes back (output processing, the line discipline it
        // edits answers in), with the signal keys off: a Ctrl-C before the gate's first
        // instruction must not end it. It restores these when it unlocks; the owner's raw mode
        // comes back after it, however it ended.
        if haveSaved {
            var modes = saved
            modes.c_lflag &= ~tcflag_t(ISIG)
            tcsetattr(outer, TCSADRAIN, &modes)
        }
        // Before the program started nothing of the session can show: Ctrl-C there ends the gate,
        // and the owner with it (exit 2), rather than clearing the line.
        let command = session.gate + (machine.programStarted ? [] : ["--cancelable"])
        // Every signal at its default: the gate ignores Ctrl-C, Ctrl-\ and Ctrl-Z itself from its first instruction.
        let child = try? ChildProcess.spawn(command, inheritSignals: false)
        gateStartedAt = now
        if let child {
            gate = child.pid
        } else {
            // No gate could start (posix_spawn says so when the exec fails): as a gate that could not run.
            gateEnded(ExitCode.commandNotFound.rawValue)
        }
    }

    private func gateEnded(_ status: Int32) {
        gate = nil
        let unlocked = status == ExitCode.success.rawValue
        let gone = terminalGone
        if !unlocked { applyRawMode() }
        switch machine.gateEnded(status: status, terminalGone: gone, now: now, startedAt: gateStartedAt) {
        case .startProgram:
            applyRawMode()
            writeText(FocusReports.enable)
            startProgram()
        case .uncover:
            applyRawMode()
            resize()
            // The lines the program scrolled off meanwhile into the terminal's scrollback, then its screen.
            let drawing = screen.scrollbackSequence() + screen.redrawSequence()
            drawing.withUnsafeBytes { writeBytes($0) }
            writeText(FocusReports.enable)
            if focus.programWantsReports { pendingInput += Array("\u{1B}[I".utf8); flushInput() }
        case .gateAgain(let milliseconds):
            writeText("\u{1B}[?1049h\u{1B}[H\u{1B}[2J\u{1B}[3J"
                      + "touchgate: the gate ended without an unlock (exit \(status)); it starts again.\r\n")
            gateDueAt = now + Double(milliseconds) / 1000
        case .exit(let code, let reason):
            endForGood(code, reason)
        case .hangUpProgramAndExit(let code, let reason):
            giveUpMessage = Self.giveUpLine(code, reason)
            forcedStatus = code
            hangUpProgram()
        case .hangUpProgram:
            hangUp()
        case .none:
            if terminal == nil { exitStatus = exitStatus ?? 129 }
        }
    }

    /// The owner ends with `code` (the gate's status) before the program started: the cover
    /// comes down, the terminal's modes are put back, and one line says why on standard error.
    private func endForGood(_ code: Int32, _ reason: ShellOwnerStateMachine.GiveUpReason) {
        writeText("\u{1B}[?1049l")
        releaseTerminal()
        haveSaved = false
        writeAll(STDERR_FILENO, Self.giveUpLine(code, reason) + "\n")
        exitStatus = code
    }

    /// The one line that says why the owner ended after its gate.
    static func giveUpLine(_ code: Int32, _ reason: ShellOwnerStateMachine.GiveUpReason) -> String {
        switch reason {
        case .cancelled:
            return "touchgate: shell: cancelled at the gate before the session started (exit \(code))"
        case .keepsEnding:
            return "touchgate: shell: the gate cannot unlock this session (exit \(code), "
                + "\(ShellOwnerStateMachine.quickEndsToGiveUp) times in a row at once); the shell ends"
        case .cannotUnlock:
            let why = switch code {
            case ExitCode.notInteractive.rawValue: "notInteractive: no terminal to ask at"
            case ExitCode.usage.rawValue: "usage error"
            case ExitCode.badValue.rawValue: "bad value"
            case ExitCode.store.rawValue: "the store cannot be used"
            default: "the gate cannot be run"
            }
            return "touchgate: shell: the gate cannot unlock this session (exit \(code), \(why)); the shell ends"
        }
    }

    // MARK: - The program

    private func startProgram() {
        let size = PseudoTerminal.size(of: outer)
        screen.resize(rows: Int32(size.ws_row), columns: Int32(size.ws_col))
        do {
            terminal = try PseudoTerminal.start(path: session.path, argv: session.argv,
                                                environment: session.environment, size: size)
        } catch {
            releaseTerminal()
            writeAll(STDERR_FILENO, "touchgate: shell: cannot start \(TerminalText.sanitized(session.path.string)): \(error)\n")
            exitStatus = ExitCode.commandNotFound.rawValue
        }
    }

    private func reapChildren() {
        if let gate, let ended = ChildProcess(pid: gate).exitedYet() {
            gateEnded(ended.shellStatus)
        }
        if let terminal, let ended = ChildProcess(pid: terminal.program).exitedYet() {
            programEnded(ended.shellStatus)
        }
    }

    private func programEnded(_ status: Int32) {
        switch machine.programExited() {
        case .exit(let show):
            if show { readProgram(toTheEnd: true) }
        case .endGateAndExit:
            endGate()
            // Nothing of the session shows after the gate, which put back the screen it covered.
            writeText("\u{1B}[?1049l\u{1B}[H\u{1B}[2J\u{1B}[3J")
        }
        if let terminal { close(terminal.master) }
        terminal = nil
        exitStatus = forcedStatus ?? status
        if let line = giveUpMessage {
            giveUpMessage = nil
            // Off the cover onto a cleared screen: nothing the program showed before the lock shows again.
            writeText("\u{1B}[?1049l\u{1B}[H\u{1B}[2J\u{1B}[3J")
            releaseTerminal()
            haveSaved = false
            writeAll(STDERR_FILENO, line + "\n")
        }
    }

    private func endGate() {
        guard let gate else { return }
        let child = ChildProcess(pid: gate)
        child.send(SIGTERM)
        _ = child.wait(until: .after(seconds: 2), killingGroup: false)
        self.gate = nil
        gateDueAt = nil
    }

    /// The terminal is gone, or the owner was told to end: the program is hung up as at a
    /// terminal close (its session's terminal hangs up, SIGHUP to it), and never shown again.
    private func hangUp() {
        switch machine.hangUp() {
        case .hangUpProgram:
            hangUpProgram()
        case .exit:
            endGate()
            exitStatus = 129
        case .none:
            break
        }
    }

    /// Hangs the program up as at a terminal close and ends the gate; the owner then waits for the program's end.
    private func hangUpProgram() {
        pendingInput.removeAll()
        endGate()
        if let terminal {
            kill(terminal.program, SIGHUP)
            kill(terminal.program, SIGCONT)
            close(terminal.master)
            self.terminal = PseudoTerminal(master: -1, program: terminal.program)
            hangUpDeadline = now + 3
        }
    }

    // MARK: - The channel

    private func acceptClients() {
        while case let client = OwnerChannel.accept(session.channel), client >= 0 {
            waitingClients.append(client)
            lockRequested()
        }
    }

    /// A `lock` (the channel, SIGUSR1): the session is checked now, and the clients waiting are
    /// answered once the cover is up.
    private func lockRequested() {
        switch machine.lockRequested() {
        case .checkSession(let reason): check(reason)
        case .acknowledge: answerClients()
        }
    }

    /// A focus report or a wake: the store's lock read again, writing nothing
    /// (``ShellOwnerSession/look``); a locked session is covered.
    private func lookAtSession() {
        guard case .checkSession = machine.lockRequested() else { return }
        checked(session.look())
    }

    /// How long the machine was suspended since boot: `CLOCK_BOOTTIME` counts the suspend,
    /// `CLOCK_MONOTONIC` does not.
    static func secondsSuspended() -> Double {
        var boot = timespec()
        var monotonic = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        return Double(boot.tv_sec - monotonic.tv_sec) + Double(boot.tv_nsec - monotonic.tv_nsec) / 1e9
    }

    private func answerClients() {
        for client in waitingClients { OwnerChannel.acknowledge(client) }
        waitingClients.removeAll()
    }
}
