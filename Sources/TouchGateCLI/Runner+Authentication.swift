import Glibc
import TouchGate

extension Runner {
    func auth(_ options: EvaluationOptions) throws -> ExitCode {
        let store = try openStore()
        let session = options.session ?? defaultSessionID()
        let context = try makeContext(store: store, session: session, options: options)
        let registration = try PromptRegistration(store: store, session: session, user: try user, kind: "auth")
        defer { registration.end() }
        let error = try attempt {
            try context.evaluateSynchronously(options.policy, reason: options.reason ?? "authenticate")
        }
        return outcome(error, policy: options.policy.rawValue)
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

    /// `enable` / `disable`: the setting changes only after a successful deviceOwner evaluation.
    /// Asking for what is already so changes nothing and needs nothing: a success, no prompt.
    func toggle(_ enabled: Bool, _ options: EvaluationOptions) throws -> ExitCode {
        let store = try openStore()
        let name = try user
        if try store.user(name).enabled == enabled {
            if !invocation.json {
                writeLine(STDOUT_FILENO, "touchgate lock for \(name): \(enabled ? "on" : "off") (already)")
            }
            return outcome(nil, policy: AuthPolicy.deviceOwner.rawValue, extra: [("enabled", .bool(enabled))])
        }
        let session = options.session ?? defaultSessionID()
        let context = try makeContext(store: store, session: session, options: options)
        let error = try attempt {
            try context.evaluateSynchronously(
                .deviceOwner, reason: options.reason ?? (enabled ? "turn the touchgate lock on" : "turn the touchgate lock off"))
        }
        if error == nil { try store.setEnabled(enabled, user: name, session: session) }
        let now = try store.user(name).enabled
        if !invocation.json {
            writeLine(STDOUT_FILENO, "touchgate lock for \(name): \(now ? "on" : "off")")
        }
        return outcome(error, policy: AuthPolicy.deviceOwner.rawValue, extra: [("enabled", .bool(now))])
    }

    func enroll(_ options: EvaluationOptions) throws -> ExitCode {
        let store = try openStore()
        let context = try makeContext(store: store, session: options.session ?? defaultSessionID(), options: options)
        let error = try attempt { try context.enroll(reason: options.reason ?? "enroll the biometric factor") }
        let record = try store.user(try user)
        if error == nil, !invocation.json { writeLine(STDOUT_FILENO, "enrolled \(record.name)") }
        return outcome(error, policy: "enroll", extra: [("enrolled", .bool(record.enrolled))])
    }

    func unenroll(_ options: EvaluationOptions) throws -> ExitCode {
        let store = try openStore()
        let name = try user
        let session = options.session ?? defaultSessionID()
        let context = try makeContext(store: store, session: session, options: options)
        let error = try attempt {
            try context.verifyPasscode(purpose: "unenroll", reason: options.reason ?? "remove the biometric enrollment")
        }
        if error == nil { try store.setEnrolled(false, user: name, session: session) }
        let record = try store.user(name)
        if error == nil, !invocation.json { writeLine(STDOUT_FILENO, "unenrolled \(name)") }
        return outcome(error, policy: "unenroll", extra: [("enrolled", .bool(record.enrolled))])
    }

    /// `reset`: clears lockout and throttling; root needs no passcode.
    func reset(_ options: EvaluationOptions) throws -> ExitCode {
        // Before the store is opened: root acting on a user's store becomes that user to open it.
        let root = geteuid() == 0
        let store = try openStore()
        let name = try user
        let session = options.session ?? defaultSessionID()
        var error: AuthError?
        if !root {
            let context = try makeContext(store: store, session: session, options: options)
            error = try attempt {
                try context.verifyPasscode(purpose: "reset", reason: options.reason ?? "reset the lockout counters")
            }
        }
        if error == nil {
            try store.resetCounters(user: name, session: session)
            if !invocation.json { writeLine(STDOUT_FILENO, "counters reset for \(name)") }
        }
        return outcome(error, policy: "reset")
    }
}
