import Glibc
import TouchGate
import TouchGateSystem

extension Runner {
    /// `--system` selects the ledger for the administrator's commands only.
    func checkSystemStoreCommand() throws {
        guard invocation.system else { return }
        switch invocation.command {
        case .status, .log, .reset, .lockdown, .configGet, .configSet, .help, .version: return
        default: throw UsageError("option '--system' applies to status, log, reset, lockdown and config only")
        }
    }

    /// Root naming another user (`--user NAME`, no `--store`): that user's own store, found
    /// through their home directory, never a new store under root's home.
    ///
    /// The corresponding C function is `getpwnam`.
    func storeOfUserForRoot() -> String? {
        guard geteuid() == 0, let name = invocation.user ?? environment["TOUCHGATE_USER"], name != invokingUserName() else {
            return nil
        }
        // A name the system does not know (a store's own user, such as a test's) keeps the default store.
        guard let entry = getpwnam(name) else { return nil }
        guard entry.pointee.pw_uid != 0, let directory = entry.pointee.pw_dir, directory.pointee != 0 else { return nil }
        return String(cString: directory) + "/.local/state/touchgate/touchgate.sqlite"
    }

    /// Whether this is an administrator's command: `--system`, or root opening another user's own
    /// store (`--user NAME` with neither `--store` nor `TOUCHGATE_STORE`, ``storeOfUserForRoot()``).
    /// A store named explicitly is the store's own user's, whoever runs the command and whatever
    /// accounts the host has.
    var isAdministratorsCommand: Bool {
        if invocation.system { return true }
        guard (invocation.storePath ?? environment["TOUCHGATE_STORE"] ?? "").isEmpty else { return false }
        return storeOfUserForRoot() != nil
    }

    /// Opening `--user NAME`'s own store as root: the store must exist (nothing is made for
    /// NAME), and the process becomes NAME first, so the store's checks (its directories and
    /// files belong to the invoking user) hold and no file of it is left root's.
    ///
    /// The corresponding C functions are `stat`, `initgroups`, `setgid` and `setuid`.
    func actAsTheUserWhoseStoreThisIs(_ path: String) throws {
        guard !invocation.system, invocation.storePath == nil, (environment["TOUCHGATE_STORE"] ?? "").isEmpty,
              let expected = storeOfUserForRoot(), expected == path, let name = invocation.user ?? environment["TOUCHGATE_USER"],
              let entry = getpwnam(name) else { return }
        var information = stat()
        guard stat(path, &information) == 0 else {
            throw StoreError(path: path, reason: .unavailable, detail: "is not there: \(name.escapedForMessage) has no touchgate store, and none is made for them")
        }
        let (uid, gid) = (entry.pointee.pw_uid, entry.pointee.pw_gid)
        guard initgroups(name, gid) == 0, setgid(gid) == 0, setuid(uid) == 0 else {
            throw StoreError(path: path, reason: .unavailable, detail: "cannot act as \(name.escapedForMessage): \(Errno.current)")
        }
    }
}

extension Runner {
    /// Who runs this command, as an audit entry names them: the user this process runs as; for
    /// an administrator's command (`--system`, or root on another user's own store), then who
    /// logged in (the login uid, `/proc/self/loginuid`, which sudo and su keep) and `SUDO_USER`
    /// when either is there: `root (login uid 1000 alice, SUDO_USER alice)`. Read before the
    /// store is opened (root acting on a user's store becomes that user).
    ///
    /// The corresponding C function is `getpwuid`.
    func invokingActor() -> String? {
        guard let name = invokingUserName() else { return nil }
        guard isAdministratorsCommand else { return name }
        var notes: [String] = []
        if let bytes = fileContents("/proc/self/loginuid"),
           let uid = UInt32(String(decoding: bytes.filter { $0 >= 0x30 && $0 <= 0x39 }, as: UTF8.self)), uid != UInt32.max {
            let login = getpwuid(uid_t(uid)).flatMap { $0.pointee.pw_name.map { String(cString: $0) } }
            notes.append("login uid \(uid)" + (login.map { " \($0)" } ?? ""))
        }
        if let sudo = environment["SUDO_USER"], !sudo.isEmpty {
            notes.append("SUDO_USER \(TerminalText.sanitized(sudo, limit: 64))")
        }
        return notes.isEmpty ? name : "\(name) (\(notes.joined(separator: ", ")))"
    }

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
