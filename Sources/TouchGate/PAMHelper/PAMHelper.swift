import Glibc

/// `touchgate-pam-helper`: one `pam_authenticate` of `pam_touchgate.so`, run in a process of its
/// own so the host never carries a Swift runtime, a thread or a signal handler of touchgate's.
///
/// It reads the host's items (``PAMHostRequest``), counts in the system ledger (a root host) or
/// the user's store, and runs one evaluation: at a local terminal it can open, on that terminal
/// as `touchgate auth` does (the reader waits while the passcode can be typed); otherwise through
/// the host's conversation, serially. It ends by sending the outcome's `LAError` code; any
/// failure before that is a system error the module fails closed on.
public enum PAMHelper {
    /// What the helper sends when the evaluation could not even run (a store or protocol error).
    static let failureCode: AuthError.Code = .authenticationFailed

    /// Runs the helper on the module's socket; returns the exit status (0 once the outcome is
    /// sent, 70 when the module is gone or spoke nonsense, 74 when the store cannot be used).
    public static func run(channel: ModuleChannel = ModuleChannel()) -> Int32 {
        guard var start = channel.receive(), start.kind == .start else { return 70 }
        defer { wipe(&start.payload) }
        let request: PAMHostRequest
        do {
            request = try PAMHostRequest(startFrame: start.payload)
        } catch {
            return 70
        }
        let outcome: AuthError.Code
        let status: Int32
        do {
            outcome = try evaluate(request, channel: channel)
            status = 0
        } catch let error as StoreError {
            channel.send(.error, text: TerminalText.sanitized("touchgate: \(error.description)"))
            outcome = failureCode
            status = 74
        } catch {
            outcome = failureCode
            status = 70
        }
        return channel.sendOutcome(outcome) ? status : 70
    }

    /// One evaluation for `request`; returns its outcome (`.init(rawValue: 0)` for success).
    static func evaluate(_ request: PAMHostRequest, channel: ModuleChannel) throws -> AuthError.Code {
        guard let path = PAMHostRequest.storePath() else {
            throw StoreError(path: "(none)", reason: .unavailable, detail: "no home directory for the store")
        }
        let store = try Store(path: path)
        let remote = request.remote
        let terminal = remote == nil ? request.openTerminal() : nil
        terminal?.wording = PromptWording.lines(for:)
        let prompts: any PromptSource = terminal ?? ModulePrompts(channel: channel)
        let base = PAMCredentialChecker(terminal: request.terminalPath ?? (request.terminal.isEmpty ? nil : request.terminal),
                                        remoteHost: remote)
        let context = AuthContext(
            user: request.user, store: store, session: request.auditSession, checker: base,
            biometricChecker: WorkerCredentialChecker(base: base), prompts: prompts)
        context.remoteHost = remote
        // The host asks again itself (sudo's passwd_tries): one passcode answer per call.
        context.passcodeTriesLimit = 1
        // Through the host's conversation no key cancels and no empty answer is asked for.
        if terminal == nil { (context.cancelTitle, context.fallbackTitle) = (nil, nil) }
        // The ledger needs no touchgate enrollment: the biometric stack decides whether the user
        // has a factor (pam_fprintd answers PAM_AUTHINFO_UNAVAIL at once without prints).
        context.biometricEnrollmentImplied = true
        // Ctrl-C and Ctrl-\ at the terminal reach the host's process group, the helper's too.
        SignalRelay.install([SIGINT, SIGQUIT, SIGTERM, SIGHUP], to: context.interrupter)
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
            // A plain wrong answer the host says itself ("Sorry, try again."); the rest is news.
            if error.code != .authenticationFailed || error.retryAfterSeconds != nil { prompts.show(error.message) }
            return error.code
        }
    }
}
