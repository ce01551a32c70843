import Glibc
import TouchGate

extension Runner {
    /// `--system` selects the ledger for the administrator's commands only.
    func checkSystemStoreCommand() throws {
        guard invocation.system else { return }
        switch invocation.command {
        case .status, .log, .reset, .lockdown, .configGet, .configSet, .help, .version: return
        default: throw UsageError("option '--system' applies to status, log, reset, lockdown and config only")
        }
    }
}

extension Runner {
    /// With `--system`, `name` must be an account or a user the ledger holds something of: a
    /// mistyped name is an error (exit 65), never a row of zeros.
    ///
    /// The corresponding C function is `getpwnam`.
    func checkLedgerUser(_ name: String, in store: Store) throws {
        guard invocation.system, getpwnam(name) == nil, !(try store.knows(user: name)) else { return }
        throw UsageError("unknown user '\(name.escapedForMessage)': no such account, and the ledger holds nothing of them",
                         exitCode: .badValue)
    }

    /// A system policy that could not be used (``SystemPolicy/problem``): the settings commands
    /// (`status`, `config`) stop with it (exit 74), since what they would show or change is not
    /// what the file says; the others say it on standard error and go on under the strictest
    /// defaults; the hooks, which run unattended in tmux and the shell, go on silently.
    func reportSystemPolicyProblem(of store: Store) throws {
        guard let problem = store.systemPolicy.problem else { return }
        switch invocation.command {
        case .status, .configGet, .configSet: throw UsageError(problem, exitCode: .store)
        case .gate, .tmuxHook, .event, .shell: return
        default: printError(problem)
        }
    }

    /// `touchgate --system status` without a user: every user of the ledger with a failure
    /// counted (the local keyboard's and remote hosts' budgets apart) or a lockdown, when each can
    /// try again and why the passcode is required, as `faillock` lists them.
    func ledgerStatus(_ store: Store) throws -> ExitCode {
        let now = store.clock.now
        let schemaVersion = try store.schemaVersion()
        let storeID = try store.storeID()
        var rows: [(String, JSONValue)] = []
        var lines: [String] = []
        let bootID = BootID.current()
        for record in try store.usersWithFailuresOrLockdowns() {
            let configuration = try store.configuration(user: record.name)
            let lockout = LockoutPolicy(configuration: configuration)
            let required = PasscodeRequirement(configuration: configuration).reason(for: record, bootID: bootID, now: now)
            let lockedOut = lockout.biometricLockedOut(failures: record.biometricFailures)
            let wait = lockout.passcodeRetryAfter(failures: record.passcodeFailures, lastFailure: record.lastPasscodeFailure, now: now)
            let remote = try store.remoteUser(record.name)
            let remoteWait = lockout.passcodeRetryAfter(
                failures: remote.passcodeFailures, lastFailure: remote.lastPasscodeFailure, now: now)
            rows.append((record.name, .object([
                ("user", .string(record.name)),
                ("biometricFailures", .int(record.biometricFailures)),
                ("biometryLockedOut", .bool(lockedOut)),
                ("passcodeFailures", .int(record.passcodeFailures)),
                ("retryAfterSeconds", wait.map(JSONValue.int) ?? .null),
                ("retryAt", wait.map { .string(isoTime(now + Double($0))) } ?? .null),
                ("remotePasscodeFailures", .int(remote.passcodeFailures)),
                ("remoteRetryAfterSeconds", remoteWait.map(JSONValue.int) ?? .null),
                ("lockdown", .bool(record.lockdown)),
                ("adminLock", .bool(record.adminLock)),
                ("passcodeRequired", required.map { .string($0.rawValue) } ?? .null),
            ])))
            let lock = [record.lockdown ? "lockdown" : nil, record.adminLock ? "admin" : nil].compactMap { $0 }
            let biometric = "\(record.biometricFailures)\(lockedOut ? " (locked out)" : "")"
            let passcode = wait.map { "in \($0) s (\(isoTime(now + Double($0))))" } ?? "now"
            let remoteAgain = remoteWait.map { "in \($0) s" } ?? "now"
            lines.append([record.name, biometric, String(record.passcodeFailures), passcode,
                          String(remote.passcodeFailures), remoteAgain, lock.isEmpty ? "-" : lock.joined(separator: "+"),
                          required?.rawValue ?? "-"]
                .map { $0.padding(16) }.joined(separator: " ").trimmingTrailingSpaces)
        }
        let json = JSONValue.object([
            ("store", .string(store.path)),
            ("storeId", .string(storeID)),
            ("schemaVersion", .int(schemaVersion)),
            ("users", .array(rows.map(\.1))),
        ])
        var text = """
            store:              \(store.path)
            store id:           \(storeID)
            schema version:     \(schemaVersion)
            """
        if lines.isEmpty {
            text += "\nno user has a failure counted or a lockdown"
        } else {
            text += "\n" + ["USER", "BIOMETRIC", "PASSCODE", "PASSCODE AGAIN", "REMOTE", "REMOTE AGAIN", "LOCK",
                           "PASSCODE REQUIRED"].map { $0.padding(16) }.joined(separator: " ")
                .trimmingTrailingSpaces
            for line in lines { text += "\n" + line }
        }
        emit(json, text: text)
        return .success
    }
}
