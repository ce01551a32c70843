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
        let now = WallClock().now
        let idle = options.idleSince.map { configuration.idleSeconds > 0 && now - $0 >= Double(configuration.idleSeconds) } ?? false
        // The fast path: an active, unlocked session with nothing to decide is only read, never written.
        if let existing, existing.lifecycle.state == .active, !existing.lifecycle.locked, !options.lockRequest, !idle {
            return .success
        }
        // A session the store does not know, or one that is not running, is a launch that was not
        // recorded (the launch event failed, or nothing sent it): while the lock is on it is locked,
        // never shown on trust. The gate records the launch itself.
        let launching = existing == nil || existing?.lifecycle.state == .notRunning

        let policy = relockPolicy(record, configuration)
        let locked: Bool
        do {
            locked = try store.updateSession(id, user: name, recording: launching ? .didFinishLaunching : nil) { session in
                if session.lifecycle.state == .notRunning {
                    _ = try session.lifecycle.handle(.didFinishLaunching, now: now, policy: policy)
                }
                if idle, let since = options.idleSince {
                    session.lifecycle.idled(since: since, now: now, policy: policy)
                } else if session.lifecycle.state == .background || session.lifecycle.isReturning {
                    session.lifecycle.relockIfGraceElapsed(now: now, policy: policy)
                } else if options.lockRequest {
                    session.lifecycle.lock(policy: policy)
                }
                if !session.lifecycle.locked { session.lifecycle.becameVisible() }
                return session.lifecycle.locked
            }
        } catch let error as StoreError {
            return try offlineGate(session: id, user: name, storeError: error)
        }
        guard locked else { return .success }
        var gate = GateSession(runner: self, store: store, session: id, user: name)
        do {
            return try gate.run()
        } catch let error as StoreError {
            // The store failed while the gate held the terminal: it still opens only for the passcode.
            return try offlineGate(session: id, user: name, storeError: error)
        }
    }

    /// The gate when the store cannot be read: it still never opens without the passcode.
    func offlineGate(session: String, user name: String, storeError: StoreError) throws -> ExitCode {
        let scripted = invocation.answersFromStandardInput
        guard let prompts = makePromptSource() else {
            printError(storeError.description)
            return ExitCode(.notInteractive)
        }
        let interrupter = Interrupter()
        let cover = GateCover(prompts: prompts, scripted: scripted, interrupter: interrupter)
        defer { cover.release() }
        var check = OfflinePasscodeCheck(checker: credentialChecker, user: name)
        var notice = "The touchgate store cannot be read (\(storeError.description)); only the passcode can unlock."
        while true {
            if cover.terminalGone { return ExitCode(.systemCancel) }
            cover.draw(header(user: name, session: session), notice: notice)
            do {
                try check.attempt(prompts: prompts, interrupter: interrupter, now: WallClock().now)
                return .success
            } catch {
                if let exit = cover.exitCode(for: error) { return exit }
                notice = "\(cover.notice(for: error)) The store cannot be read; only the passcode can unlock."
                if let wait = error.retryAfterSeconds {
                    cover.countDown(wait, below: header(user: name, session: session))
                } else if error.code == .passcodeNotSet {
                    cover.draw(header(user: name, session: session), notice: notice)
                    if let exit = cover.waitForEnter() { return exit }
                }
            }
        }
    }

    func header(user: String, session: String) -> [String] {
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        let hostName = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // Each line reaches the terminal through TerminalText (GateCover.draw).
        return [
            "touchgate: this session is locked",
            "",
            "  user:    \(user)",
            "  host:    \(hostName)",
            "  session: \(session.escapedForMessage)",
            "",
        ]
    }
}

/// One locked session being unlocked by the gate.
struct GateSession {
    let runner: Runner
    let store: Store
    let session: String
    let user: String

    mutating func run() throws -> ExitCode {
        let scripted = runner.invocation.answersFromStandardInput
        guard let prompts = runner.makePromptSource() else { return ExitCode(.notInteractive) }
        let context = AuthContext(
            user: user, store: store, session: session,
            checker: runner.credentialChecker, biometricChecker: runner.biometricChecker, prompts: prompts)
        context.remoteHost = runner.remoteHost
        context.fallbackTitle = "the passcode"
        // Ctrl-C only clears the line at the gate: offering it as "cancel" would mislead.
        context.cancelTitle = nil
        let cover = GateCover(prompts: prompts, scripted: scripted, interrupter: context.interrupter)
        defer { cover.release() }

        // No double prompt: while another live process prompts for this session, wait for it.
        while let owner = try store.claimPrompt(session: session, user: user, pid: getpid(), kind: "gate") {
            cover.draw(runner.header(user: user, session: session)
                + ["Another terminal is unlocking this session (process \(owner)); waiting."])
            if let exit = cover.pause(milliseconds: 300) { return exit }
            if try store.session(session)?.lifecycle.locked == false { return .success }
        }
        defer { try? store.releasePrompt(session: session, pid: getpid()) }

        var notice: String?
        while true {
            if cover.terminalGone { return ExitCode(.systemCancel) }
            cover.draw(try status(), notice: notice)
            do {
                try context.evaluateSynchronously(.deviceOwner, reason: "unlock session \(session.escapedForMessage)")
                try store.updateSession(session, user: user) { record in
                    record.lifecycle.unlock()
                    record.lifecycle.becameVisible()
                }
                return .success
            } catch let error as AuthError {
                if let exit = cover.exitCode(for: error) { return exit }
                notice = cover.notice(for: error)
                if let wait = error.retryAfterSeconds {
                    cover.countDown(wait, below: runner.header(user: user, session: session))
                } else if error.code == .passcodeNotSet {
                    // Nothing can unlock until an administrator fixes the stack: say why, and look
                    // again when asked to.
                    cover.draw(try status(), notice: notice)
                    if let exit = cover.waitForEnter() { return exit }
                    notice = nil
                }
            }
        }
    }

    /// The header with attempts left and any lockout or throttling.
    func status() throws -> [String] {
        let record = try store.user(user)
        let configuration = try store.configuration(user: user)
        let lockout = LockoutPolicy(configuration: configuration)
        var lines = runner.header(user: user, session: session)
        if let host = runner.remoteHost {
            lines.append("  Remote session (from \(host)): unlock with the passcode of \(user).")
        } else if !record.enrolled || configuration.biometricService.isEmpty {
            lines.append("  Unlock with the passcode of \(user).")
        } else if lockout.biometricLockedOut(failures: record.biometricFailures) {
            lines.append("  Biometrics are locked out after \(record.biometricFailures) failures: use the passcode.")
        } else {
            let left = configuration.maxBiometricFailures - record.biometricFailures
            lines.append("  Biometric attempts left: \(left) of \(configuration.maxBiometricFailures).")
            lines.append("  Press Enter at the biometric prompt to use the passcode instead.")
        }
        if let wait = lockout.passcodeRetryAfter(
            failures: record.passcodeFailures, lastFailure: record.lastPasscodeFailure, now: WallClock().now) {
            lines.append("  Too many wrong passcodes: next try in \(wait) s.")
        }
        lines.append("")
        return lines
    }
}

/// The gate's hold on the terminal: the cover, the signal dispositions, and how each outcome ends it.
final class GateCover {
    let scripted: Bool
    let interrupter: Interrupter
    private let cover: TerminalCover?
    private let prompts: any PromptSource

    init(prompts: any PromptSource, scripted: Bool, interrupter: Interrupter) {
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
    }

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

    /// What the cover says after an outcome that does not end the gate.
    func notice(for error: AuthError) -> String {
        switch error.code {
        case .userCancel, .appCancel: "Cancelled; the session stays locked. Type again."
        default: error.message
        }
    }

    /// The terminal the gate holds is gone: ending is all that is left (the session stays locked).
    /// A hangup signal does not always come: only the terminal's session leader is sure to get one.
    var terminalGone: Bool { cover?.isHungUp ?? false }

    /// The exit status an outcome ends the gate with, or `nil` when the gate asks again; with
    /// `-S`, an outcome that ends the gate is also said on standard error, as `auth` says it.
    func exitCode(for error: AuthError) -> ExitCode? {
        let exit = exitStatus(for: error)
        if scripted, exit != nil { prompts.show("touchgate: \(error.message) (\(error.code.name))") }
        return exit
    }

    private func exitStatus(for error: AuthError) -> ExitCode? {
        switch error.code {
        case .systemCancel:
            return ExitCode(.systemCancel)
        case .notInteractive:
            return ExitCode(.notInteractive)
        case .userCancel, .appCancel:
            if scripted { return ExitCode(error.code) }
            // End of input from a terminal that hung up would otherwise be asked again forever.
            if terminalGone { return ExitCode(.systemCancel) }
            interrupter.clear()
            return nil
        case .passcodeNotSet where scripted:
            return ExitCode(error.code)
        default:
            if scripted, error.retryAfterSeconds != nil { return ExitCode(error.code) }
            return nil
        }
    }

    /// Shows a countdown below `lines` while the passcode is throttled, redrawing its one line in
    /// place; a SIGHUP during it still ends the gate. Echo stays off meanwhile (the cover's modes).
    func countDown(_ seconds: Int, below lines: [String]) {
        func line(_ remaining: Int) -> String { "  Too many wrong passcodes: next try in \(remaining) s." }
        draw(lines + [line(seconds)])
        for remaining in stride(from: seconds, to: 0, by: -1) {
            if remaining != seconds { cover?.redraw(row: lines.count + 1, line(remaining)) }
            if pause(milliseconds: 1_000) != nil { return }
        }
    }

    /// Waits for Enter (any line) at a prompt of its own; returns the exit status when the gate must end.
    func waitForEnter() -> ExitCode? {
        switch prompts.ask("Press Enter to try again.", echo: false, interrupter: interrupter) {
        case .answer(var line):
            // Whatever was typed is not used, but may have been a secret.
            line.withUnsafeMutableBytes { bytes in
                if let base = bytes.baseAddress { explicit_bzero(base, bytes.count) }
            }
            return nil
        case .interrupted(.system):
            return ExitCode(.systemCancel)
        case .interrupted(_), .invalid(_):
            interrupter.clear()
            return nil
        case .endOfInput:
            return scripted || terminalGone ? exitStatus(for: AuthError(.userCancel)) : nil
        case .notInteractive:
            return ExitCode(.notInteractive)
        }
    }

    /// Waits, waking early for an interruption; returns the exit status when the gate must end.
    func pause(milliseconds: Int32) -> ExitCode? {
        var descriptor = pollfd(fd: interrupter.fileDescriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, milliseconds)
        if terminalGone { return ExitCode(.systemCancel) }
        guard let interruption = interrupter.pending else { return nil }
        return exitCode(for: AuthError(interruption.code))
    }
}
