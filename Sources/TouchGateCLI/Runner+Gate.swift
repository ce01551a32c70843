import Glibc
import TouchGate

extension Runner {
    /// `touchgate gate`: exits 0 at once when the session needs no unlock; otherwise covers the
    /// terminal and asks until a successful evaluation, then unlocks the session.
    func gate(_ options: GateOptions) throws -> ExitCode {
        if !invocation.answersFromStandardInput {
            // At once, before any work: a key held down while the gate starts must not end it.
            SignalRelay.ignore([SIGINT, SIGQUIT, SIGTSTP])
        }
        let id = try requireSession(options.session)
        let name = try user
        let store: Store
        let record: UserRecord
        let configuration: Configuration
        let existing: SessionRecord?
        do {
            store = try openStore()
            record = try store.user(name)
            guard record.enabled else { return .success }
            configuration = try store.configuration(user: name)
            existing = try store.session(id)
        } catch let error as StoreError {
            return try offlineGate(session: id, user: name, storeError: error)
        }
        let locked: Bool
        do {
            locked = try Gate.sessionIsLocked(
                store: store, session: id, record: record, configuration: configuration, existing: existing,
                idleSince: options.idleSince, lockRequest: options.lockRequest, now: WallClock().now)
        } catch let error as StoreError {
            return try offlineGate(session: id, user: name, storeError: error)
        }
        guard locked else { return .success }
        // A tmux session is locked on every client that shows it, not only where this gate runs.
        lockTmuxClients(of: id, store: store, socket: options.tmuxSocket)
        guard let prompts = makePromptSource() else { return ExitCode(.notInteractive) }
        let context = AuthContext(
            user: name, store: store, session: id,
            checker: credentialChecker, biometricChecker: biometricChecker, prompts: prompts)
        context.remoteHost = remoteHost
        context.fallbackTitle = "the passcode"
        // Ctrl-C only clears the line at the gate: offering it as "cancel" would mislead.
        context.cancelTitle = nil
        // A gate that a tmux pane's shell runs (the session from $TMUX, in a pane) draws behind
        // the session's clients, which are locked: the client's own gate takes over from it.
        let inPane = environment["TMUX_PANE"] != nil && environment["TMUX"].flatMap(tmuxSessionID) == id
        let gate = Gate(store: store, session: id, context: context, scripted: invocation.answersFromStandardInput,
                        kind: inPane ? .tmuxPane : .gate)
        let label = sessionLabel(id, socket: existing?.tmuxSocket ?? options.tmuxSocket)
        gate.reason = "unlock " + (label == id ? "session \(id.escapedForMessage)" : label.escapedForMessage)
        let end: GateEnd
        do {
            let cover = GateCover(header: header(user: name, label: label), prompts: prompts,
                                  scripted: invocation.answersFromStandardInput, interrupter: context.interrupter)
            defer { cover.release() }
            let remote = remoteHost
            cover.readStatus = { try? GateStatus.read(store: store, user: name, session: id, remoteHost: remote) }
            end = try gate.run(on: cover)
        } catch let error as StoreError {
            // The store failed while the gate held the terminal: it still opens only for the passcode.
            return try offlineGate(session: id, user: name, storeError: error)
        }
        return exitCode(end)
    }

    /// The gate when the store cannot be read: it still never opens without the passcode.
    func offlineGate(session: String, user name: String, storeError: StoreError) throws -> ExitCode {
        let scripted = invocation.answersFromStandardInput
        guard let prompts = makePromptSource() else {
            printError(storeError.description)
            return ExitCode(.notInteractive)
        }
        let interrupter = Interrupter()
        let cover = GateCover(header: header(user: name, session: session), prompts: prompts, scripted: scripted,
                              interrupter: interrupter)
        defer { cover.release() }
        let gate = OfflineGate(user: name, session: session, checker: credentialChecker, prompts: prompts,
                               interrupter: interrupter, scripted: scripted, storeError: storeError)
        return exitCode(gate.run(on: cover))
    }

    /// The exit status of a gate's end.
    func exitCode(_ end: GateEnd) -> ExitCode {
        switch end {
        case .unlocked: .success
        case .stopped(let error): ExitCode(error.code)
        }
    }

    func header(user: String, session: String) -> [String] {
        header(user: user, label: sessionLabel(session))
    }

    func header(user: String, label: String) -> [String] {
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        let hostName = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // Each line reaches the terminal through TerminalText (GateCover.draw).
        return [
            "touchgate: this session is locked",
            "",
            "  user:    \(user)",
            "  host:    \(hostName)",
            "  session: \(label.escapedForMessage)",
            "",
        ]
    }

    /// What the user knows the session by: the tmux session's name (asked of the server whose pid
    /// the id names, through the socket the hooks recorded or `$TMUX` names, else through the
    /// account's sockets in tmux's directory), the terminal of a shell, else the id itself.
    func sessionLabel(_ id: String, socket recorded: String? = nil) -> String {
        if id.hasPrefix("tmux-"), let dollar = id.lastIndex(of: "$") {
            // The server is the one whose pid the id names: the recorded socket or `$TMUX`'s, else
            // (a session the hooks have not recorded yet, as at its launch) the account's sockets.
            let serverPID = String(id.dropFirst("tmux-".count).prefix { $0.isNumber })
            let named = recorded ?? environment["TMUX"].flatMap { $0.split(separator: ",").first.map(String.init) }
            let sockets = (named.map { [$0] } ?? [])
                + TmuxSocketDirectory.sockets(uid: geteuid(), tmuxTemporaryDirectory: environment["TMUX_TMPDIR"])
            for socket in sockets where !socket.isEmpty {
                guard let line = firstOutputLine("tmux", ["-S", socket, "display-message", "-p", "-t", String(id[dollar...]),
                                                          "#{pid} #{session_name}"]),
                      line.hasPrefix(serverPID + " ") else { continue }
                return "tmux session \"\(line.dropFirst(serverPID.count + 1))\""
            }
            return id
        }
        if id.hasPrefix("shell-"), let terminal = terminalName() { return "the shell on \(terminal)" }
        return id
    }
}

/// The gate's hold on the terminal: the cover, the signal dispositions, the drawing and the
/// waits (``GateScreen``); what the gate does and when it ends is ``Gate``'s.
final class GateCover: GateScreen {
    /// The lines above everything the gate shows (``Runner/header(user:session:)``), read once.
    private let header: [String]
    let scripted: Bool
    let interrupter: Interrupter
    private let cover: TerminalCover?
    private let prompts: any PromptSource

    init(header: [String], prompts: any PromptSource, scripted: Bool, interrupter: Interrupter) {
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

    /// Reads the status from the store, for the redraw after a wrong try (`nil`: not redrawn).
    var readStatus: (() -> GateStatus?)?

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
    func release() {
        (prompts as? TerminalPrompts)?.release()
        cover?.restore()
    }

    func showStatus(_ status: GateStatus, notice: String?) {
        draw(header + status.lines, notice: notice)
    }

    func showWaitingForOwner(_ owner: Int32) {
        draw(header + ["Another terminal is unlocking this session (process \(owner)); waiting."]
             + (terminal == nil ? [] : ["Press Enter to unlock it here instead."]))
    }

    /// The terminal the cover reads keys from while another process holds the prompt.
    private var terminal: Int32? { scripted ? nil : (prompts as? TerminalPrompts)?.fileDescriptor }

    /// Also wakes for keys typed at the cover: Enter takes the prompt over (the user is at this
    /// terminal); any other key is read and dropped (it may be a secret: the buffer is wiped).
    func waitForOwner(milliseconds: Int32) -> GateOwnerWait {
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
    func showCountdown(_ seconds: Int) {
        draw(header + [countdownLine(seconds)])
    }

    func redrawCountdown(_ seconds: Int) {
        cover?.redraw(row: header.count + 1, countdownLine(seconds))
    }

    /// The terminal the gate holds is gone: ending is all that is left (the session stays locked).
    /// A hangup signal does not always come: only the terminal's session leader is sure to get one.
    var terminalGone: Bool { cover?.isHungUp ?? false }

    func say(_ line: String) { prompts.show(line) }

    func waitForEnter() -> GateEnterWait {
        switch prompts.ask("Press Enter to try again.", echo: false, interrupter: interrupter) {
        case .answer(var line):
            // Whatever was typed is not used, but may have been a secret.
            line.withUnsafeMutableBytes { bytes in
                if let base = bytes.baseAddress { explicit_bzero(base, bytes.count) }
            }
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
    func pause(milliseconds: Int32) -> Interruption? {
        var descriptor = pollfd(fd: interrupter.fileDescriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, milliseconds)
        return interrupter.pending
    }
}
