import Glibc
import TouchGate

extension Runner {
    func auth(_ options: EvaluationOptions) throws -> ExitCode {
        let store = try openStore()
        let session = options.session ?? invocationContext.defaultSessionID()
        let context = try makeContext(store: store, session: session, options: options)
        // Held while this waits for an answer, so that a did-enter-background finds and ends it.
        let hold = try session.map { id in
            let hold = PromptHold(store: store, session: id, user: try user, kind: .auth, probe: probe)
            _ = try hold.claim()
            return hold
        }
        defer { hold?.release() }
        let error = try attempt {
            try context.evaluateSynchronously(options.policy, reason: options.reason ?? "authenticate")
        }
        return outcome(error, policy: options.policy.rawValue, extra: try StatusReport.attemptsLeft(store: store, user: context.user))
    }

    func canEvaluate(_ options: EvaluationOptions) throws -> ExitCode {
        let store = try openStore()
        let context = AuthContext(
            user: try user, store: store, session: options.session,
            checker: credentialChecker, biometricChecker: biometricChecker, prompts: nil)
        context.remoteHost = remoteHost
        let error = try attempt { try context.canEvaluate(options.policy) }
        return outcome(error, policy: options.policy.rawValue)
    }

    /// The authorization rules of `enable`, `disable`, `config set`, `reset` and `unenroll`
    /// (``SettingChanges``), asking through this terminal (or standard input) when a rule says so.
    func settingChanges(store: Store, options: EvaluationOptions) throws -> SettingChanges {
        let session = options.session ?? invocationContext.defaultSessionID()
        return SettingChanges(store: store, user: try user, session: session) { authorization in
            let context = try makeContext(store: store, session: session, options: options)
            return try attempt {
                switch authorization {
                case .deviceOwner(let reason): try context.evaluateSynchronously(.deviceOwner, reason: reason)
                case .passcode(let purpose, let reason): try context.verifyPasscode(purpose: purpose, reason: reason)
                }
            }
        }
    }

    /// `enable` / `disable` (``SettingChanges/toggle(_:reason:)``).
    func toggle(_ enabled: Bool, _ options: EvaluationOptions) throws -> ExitCode {
        let store = try openStore()
        let name = try user
        let toggle = try settingChanges(store: store, options: options).toggle(enabled, reason: options.reason)
        if !invocation.json {
            writeLine(STDOUT_FILENO, "touchgate lock for \(name): \(toggle.enabled ? "on" : "off")\(toggle.already ? " (already)" : "")")
        }
        return outcome(toggle.error, policy: AuthPolicy.deviceOwner.rawValue, extra: [("enabled", .bool(toggle.enabled))])
    }

    func enroll(_ options: EvaluationOptions) throws -> ExitCode {
        let store = try openStore()
        let context = try makeContext(store: store, session: options.session ?? invocationContext.defaultSessionID(), options: options)
        var error = try attempt { try context.enroll(reason: options.reason ?? "enroll the biometric factor") }
        // What the evaluation showed comes first (its header line), then the outcome.
        (context.prompts as? TerminalPrompts)?.release()
        let record = try store.user(try user)
        if error == nil, !invocation.json { writeLine(STDOUT_FILENO, "enrolled \(record.name)") }
        if let failure = error, failure.code == .biometryNotAvailable,
           let why = readerDiagnosis(user: record.name, biometricService: try store.configuration(user: record.name).biometricService) {
            // Why there is no reader, in the order it is fixed (ReaderDiagnosis).
            error = AuthError(.biometryNotAvailable, detail: String(failure.message.dropLast(failure.message.hasSuffix(".") ? 1 : 0)) + ": " + why + ".")
        }
        return outcome(error, policy: "enroll", extra: [("enrolled", .bool(record.enrolled))])
    }

    func unenroll(_ options: EvaluationOptions) throws -> ExitCode {
        let store = try openStore()
        let name = try user
        let error = try settingChanges(store: store, options: options).unenroll(reason: options.reason)
        let record = try store.user(name)
        if error == nil, !invocation.json { writeLine(STDOUT_FILENO, "unenrolled \(name)") }
        return outcome(error, policy: "unenroll", extra: [("enrolled", .bool(record.enrolled))])
    }

    /// `reset`: clears lockout and throttling; root needs no passcode.
    func reset(_ options: EvaluationOptions) throws -> ExitCode {
        // Before the store is opened: root acting on a user's store becomes that user to open it.
        let root = geteuid() == 0
        let actor = invocationContext.invokingActor()
        let store = try openStore()
        let name = try user
        try checkLedgerUser(name, in: store)
        let error = try settingChanges(store: store, options: options).reset(reason: options.reason, callerIsRoot: root, actor: actor)
        if error == nil, !invocation.json { writeLine(STDOUT_FILENO, "counters reset for \(name)") }
        return outcome(error, policy: "reset")
    }
}
