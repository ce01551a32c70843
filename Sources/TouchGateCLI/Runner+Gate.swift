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
        if existing == nil, !options.lockRequest, !idle { return .success }

        let policy = relockPolicy(record, configuration)
        let locked: Bool
        do {
            locked = try store.updateSession(id, user: name) { session in
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
            cover.draw(header(user: name, session: session) + [notice])
            do {
                try check.attempt(prompts: prompts, interrupter: interrupter, now: WallClock().now)
                return .success
            } catch {
                if let exit = cover.exitCode(for: error) { return exit }
                notice = "\(error.message) The store cannot be read; only the passcode can unlock."
                if let wait = error.retryAfterSeconds { cover.countDown(wait) }
            }
        }
    }

    func header(user: String, session: String) -> [String] {
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        let hostName = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
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
            checker: runner.credentialChecker, prompts: prompts)
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
            cover.draw(try status() + (notice.map { ["", $0] } ?? []))
            do {
                try context.evaluateSynchronously(.deviceOwner, reason: "unlock session \(session.escapedForMessage)")
                try store.updateSession(session, user: user) { record in
                    record.lifecycle.unlock()
                    record.lifecycle.becameVisible()
                }
                return .success
            } catch let error as AuthError {
                if let exit = cover.exitCode(for: error) { return exit }
                notice = error.code == .userCancel || error.code == .appCancel
                    ? "Cancelled; the session stays locked." : error.message
                if let wait = error.retryAfterSeconds {
                    cover.countDown(wait)
                } else if error.code == .passcodeNotSet {
                    // Nothing can unlock until an administrator fixes the stack: hold, and look again later.
                    if let exit = cover.pause(milliseconds: 5_000) { return exit }
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
        if !record.enrolled || configuration.biometricService.isEmpty {
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

    func draw(_ lines: [String]) {
        if let cover {
            cover.draw(lines)
        } else {
            for line in lines where !line.isEmpty { prompts.show(line) }
        }
    }

    func release() {
        cover?.restore()
    }

    /// The terminal the gate holds is gone: ending is all that is left (the session stays locked).
    /// A hangup signal does not always come: only the terminal's session leader is sure to get one.
    var terminalGone: Bool { cover?.isHungUp ?? false }

    /// The exit status an outcome ends the gate with, or `nil` when the gate asks again.
    func exitCode(for error: AuthError) -> ExitCode? {
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

    /// Shows a countdown while the passcode is throttled; a SIGHUP during it still ends the gate.
    func countDown(_ seconds: Int) {
        for remaining in stride(from: seconds, to: 0, by: -1) {
            draw(["touchgate: this session is locked", "", "  Too many wrong passcodes: next try in \(remaining) s."])
            if pause(milliseconds: 1_000) != nil { return }
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
