import Glibc
import TouchGateCore
import TouchGatePAM
import TouchGateStore
import TouchGateSystem
import TouchGateTerminal

/// `touchgate-pam-helper`: one `pam_authenticate` of `pam_touchgate.so`, run in a process of its
/// own so the host never carries a Swift runtime, a thread or a signal handler of touchgate's.
///
/// It reads the host's items (``PAMHostRequest``), counts in the system ledger (a root host) or
/// the user's store, and runs one evaluation: at a local terminal it can open, on that terminal
/// as `touchgate auth` does (the reader waits while the passcode can be typed); otherwise through
/// the host's conversation, serially. It ends by sending the outcome's `LAError` code; any
/// failure before that is a system error the module fails closed on.
package enum PAMHelper {
    /// What the helper sends when the evaluation could not even run (a store or protocol error).
    static let failureCode: AuthError.Code = .authenticationFailed

    /// Runs the helper on the module's socket; returns the exit status (0 once the outcome is
    /// sent, 70 when the module is gone or spoke nonsense, 74 when the store cannot be used).
    package static func run(channel: ModuleChannel = ModuleChannel()) -> ExitCode {
        guard let start = channel.receive(), start.kind == .start else { return .internalError }
        var items = start.publicBytes
        defer { wipe(&items) }
        let request: PAMHostRequest
        do {
            request = try PAMHostRequest(startFrame: items)
        } catch {
            return .internalError
        }
        let outcome: AuthError.Code
        let status: ExitCode
        do {
            outcome = try evaluate(request, channel: channel)
            status = .success
        } catch let error as StoreError {
            channel.send(.error, text: TerminalText.sanitized("touchgate: \(error.description)"))
            outcome = failureCode
            status = ExitCode(error)
        } catch {
            outcome = failureCode
            status = .internalError
        }
        return channel.sendOutcome(outcome) ? status : .internalError
    }

    /// One evaluation for `request`; returns its outcome (`.init(rawValue: 0)` for success).
    static func evaluate(_ request: PAMHostRequest, channel: ModuleChannel) throws -> AuthError.Code {
        guard let path = PAMHostRequest.storePath() else {
            throw StoreError(path: "(none)", reason: .unavailable, detail: "no home directory for the store")
        }
        let store = try Store(path: path)
        let remote = request.remote
        let base = PAMCredentialChecker(terminal: request.terminalPath?.string ?? (request.terminal.isEmpty ? nil : request.terminal),
                                        remoteHost: remote)
        // A remote host is told no counts or delays: nothing to pace a guessing run by.
        let wording = HostWording(silent: request.silent, remote: remote != nil)
        // Ctrl-C and Ctrl-\ at the terminal reach the host's process group, the helper's too.
        let interrupter = Interrupter()
        SignalRelay.install([SIGINT, SIGQUIT, SIGTERM, SIGHUP], to: interrupter)
        guard PAMHostRequest.userExists(request.user) else {
            return try askForNobody(request, store: store, checker: base, prompts: ModulePrompts(channel: channel, wording: wording),
                                    interrupter: interrupter)
        }
        // A remote host's passcode tries have a budget of their own (RemoteAttemptLedger).
        let ledger: any AttemptLedger = remote == nil ? store : RemoteAttemptLedger(store: store)
        // A rule's reason is said only to a user whose finger unlocked here before (HostWording).
        wording.fingerUsed = try ledger.user(request.user).lastBiometricSuccess != nil
        // The helper asks on the terminal itself only where the host would, and only for the
        // biometric factor's sake (the reader waits while the password can be typed); otherwise
        // the host's own conversation asks, with the host's own prompt.
        let terminal = try request.hostAsksAtTerminal && remote == nil
            && biometricMayBeTried(request, ledger: ledger, checker: base) ? request.openTerminal() : nil
        let hostPrompts = ModulePrompts(channel: channel, wording: wording)
        let prompts: any PromptSource = terminal.map { HostTerminalPrompts(terminal: $0, host: hostPrompts) } ?? hostPrompts
        let context = AuthContext(
            user: request.user, ledger: ledger, session: request.auditSession, checker: base,
            biometricChecker: WorkerCredentialChecker(base: base), prompts: prompts, interrupter: interrupter)
        context.remoteHost = remote
        // The host asks again itself (sudo's passwd_tries): one passcode answer per call.
        context.passcodeTriesLimit = 1
        // Through the host's conversation no key cancels and no empty answer is asked for.
        if terminal == nil { (context.cancelTitle, context.fallbackTitle) = (nil, nil) }
        // The ledger needs no touchgate enrollment: the biometric stack decides whether the user
        // has a factor (pam_fprintd answers PAM_AUTHINFO_UNAVAIL at once without prints).
        context.biometricEnrollmentImplied = true
        defer { terminal?.release() }
        do {
            switch request.factor {
            case .both: try context.evaluateSynchronously(.deviceOwner, reason: "authenticate for \(request.service)")
            case .biometric: try context.evaluateSynchronously(.biometrics, reason: "authenticate for \(request.service)")
            case .passcode: try context.verifyPasscode(purpose: .passcode, reason: "authenticate for \(request.service)")
            }
            return AuthError.Code(rawValue: 0)
        } catch {
            // A store that failed during the evaluation is the store error it carries: exit 74.
            if let storeError = error.storeError { throw storeError }
            if shows(error, silent: wording.silent) { prompts.show(error.message) }
            return error.code
        }
    }

    /// Whether the host is told `error`'s message: not a plain wrong answer (the host says
    /// "Sorry, try again." itself), not a cancel (the host says it: one line, not three), not a
    /// delay when `silent`.
    static func shows(_ error: AuthError, silent: Bool) -> Bool {
        switch error.code {
        case .userCancel, .systemCancel, .appCancel: return false
        case .authenticationFailed: return error.retryAfterSeconds != nil && !silent
        default: return true
        }
    }

    /// Whether the evaluation may try the biometric factor, as far as the ledger and the stacks
    /// say before anything is asked (a stack without a reader or prints says so only when tried).
    static func biometricMayBeTried(_ request: PAMHostRequest, ledger: any AttemptLedger, checker: PAMCredentialChecker) throws -> Bool {
        guard request.factor != .passcode else { return false }
        let configuration = try ledger.configuration(user: request.user)
        var record = try ledger.user(request.user)
        record.enrolled = true
        // A rule that requires the passcode (a restart, an idle spell, a lockdown) skips the reader.
        if ledger.passcodeRequired(record: record, configuration: configuration) != nil { return false }
        return EvaluationStateMachine.biometricAvailability(
            record: record, configuration: configuration, remoteHost: request.remote,
            stackExists: checker.serviceExists(configuration.biometricService)) == nil
            // A closed lid (logind's LidClosed): the passcode prompt comes at once.
            && !LidState.closed()
    }

    /// A user name that does not exist (sshd's invalid users): asked for a password as pam_unix
    /// asks, through the passcode stack itself (same prompt, same delay), always a failure; no
    /// row in the ledger and nothing counted, so a flood of invented names cannot grow it.
    static func askForNobody(
        _ request: PAMHostRequest, store: Store, checker: PAMCredentialChecker, prompts: ModulePrompts, interrupter: Interrupter
    ) throws -> AuthError.Code {
        guard request.factor != .biometric else { return .biometryNotAvailable }
        let configuration = try store.configuration(user: request.user)
        let result = checker.check(service: configuration.passcodeService, user: request.user, prompts: prompts,
                                   interrupter: interrupter, emptyAnswerIsFallback: false)
        if let interruption = result.interruption { return interruption.code }
        return .authenticationFailed
    }
}
