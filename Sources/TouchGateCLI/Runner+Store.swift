import Glibc
import TouchGate

extension Runner {
    /// The store; with `--store-id`, only the store of that id (a missing store is not created).
    /// When this process made it while the session's integration reads a store, it says so on
    /// standard error (``newStoreNotice(_:)``).
    func openStore() throws -> Store {
        let path = try storePath
        try invocationContext.actAsTheUserWhoseStoreThisIs(path)
        let store = try Store(path: path, expectedID: invocation.storeID, clock: clock)
        if let notice = newStoreNotice(store) { printError(notice) }
        try reportSystemPolicyProblem(of: store)
        return store
    }

    /// What to say when `store` was made by this process while the session's integration reads
    /// a store (`TOUCHGATE_HOOK_STORE`, the path the snippets export), or `nil`.
    ///
    /// A new store has the lock off, and no hook reads it: one at another path (a command typed
    /// with another `TOUCHGATE_STORE`) holds a lock no hook ever checks; one at the hooks' own
    /// path means the store they were set up with is gone (its id, which the snippets carry, is
    /// no longer there), so the hooks ask for the passcode until the integration is generated
    /// again. Either way the user learns which store this command read and that it is new.
    /// (The hooks themselves never make a store: they carry `--store-id`.)
    ///
    /// `forSnippet`: the store was made to generate a snippet, which will read it; that is said
    /// even outside an integrated session (an rc file that eval's `shell-init` after the store
    /// was deleted shows it there).
    func newStoreNotice(_ store: Store, forSnippet: Bool = false) -> String? {
        guard store.createdByThisProcess else { return nil }
        var notice = "made a new store at \(store.path.escapedForMessage) (lock off)"
        let hooks = environment["TOUCHGATE_HOOK_STORE"].flatMap { $0.isEmpty ? nil : $0 }
        let samePath = hooks.map { absolutePath($0) == absolutePath(store.path) } ?? false
        if forSnippet {
            notice += " for this snippet"
            if let hooks {
                notice += samePath ? ", where this session's integration had its store: that store is gone (deleted or moved)"
                    : "; this session's integration reads the store at \(hooks.escapedForMessage)"
            }
            return notice + "; touchgate enable turns the lock on"
        }
        guard let hooks else { return nil }
        guard samePath else { return notice + "; this session's integration reads the store at \(hooks.escapedForMessage)" }
        return notice + " where this session's integration had its store: that store is gone (deleted or moved), "
            + "and the integration does not read a new one; generate it again (touchgate tmux-conf, touchgate shell-init)"
    }

    /// `status`: one user's state; with `--system`, the ledger's (no lock, enrollment, sessions
    /// or watcher there), and without a user every user of the ledger with a failure counted.
    func status() throws -> ExitCode {
        let store = try openStore()
        if invocation.system, (invocation.user ?? environment["TOUCHGATE_USER"] ?? "").isEmpty {
            return try ledgerStatus(store)
        }
        let name = try user
        try checkLedgerUser(name, in: store)
        let record = try store.user(name)
        let stored = try store.storedConfiguration(user: name)
        let configuration = store.systemPolicy.effective(stored)
        let overridden = store.systemPolicy.overridden(in: stored)
        let lockout = LockoutPolicy(configuration: configuration)
        let lockedOut = lockout.biometricLockedOut(failures: record.biometricFailures)
        let now = store.clock.now
        let required = PasscodeRequirement(configuration: configuration).reason(for: record, bootID: BootID.current(), now: now)
        let wait = lockout.passcodeRetryAfter(
            failures: record.passcodeFailures, lastFailure: record.lastPasscodeFailure, now: now)
        // Shown as a return now would find them: a background session past its grace is locked.
        let sessions = try LifecycleEvents(store: store, user: name, probe: probe)
            .sessionsAsReturningNow(policy: relockPolicy(record, configuration))
        let sessionList = JSONValue.array(sessions.map { session in
            .object([("id", .string(session.id)), ("state", .string(session.lifecycle.state.rawValue)),
                     ("locked", .bool(session.lifecycle.locked))])
        })
        let schemaVersion = try store.schemaVersion()
        let storeID = try store.storeID()
        // The ledger has no lock to turn on, no enrollment, no sessions and no watcher.
        let ledger = invocation.system
        let watcher = ledger ? nil : WatcherLock.holder(store: store.path, user: name)
        var members: [(String, JSONValue)] = [("user", .string(name)), ("store", .string(store.path)), ("storeId", .string(storeID))]
        if !ledger {
            members += [("enabled", .bool(record.enabled)), ("enrolled", .bool(record.enrolled)),
                        ("domainState", record.domainState.map(JSONValue.string) ?? .null)]
        }
        members += [
            ("biometricFailures", .int(record.biometricFailures)),
            ("biometryLockedOut", .bool(lockedOut)),
            ("passcodeFailures", .int(record.passcodeFailures)),
            ("retryAfterSeconds", wait.map(JSONValue.int) ?? .null),
            ("passcodeRequired", required.map { .string($0.rawValue) } ?? .null),
        ] + (try attemptsLeft(store: store, user: name)) + [("schemaVersion", .int(schemaVersion))]
        // The ledger counts remote hosts' passcode tries apart (docs/security.md).
        let remote = ledger ? try store.remoteUser(name) : nil
        let remoteWait = remote.flatMap {
            lockout.passcodeRetryAfter(failures: $0.passcodeFailures, lastFailure: $0.lastPasscodeFailure, now: now)
        }
        if let remote {
            members += [("remotePasscodeFailures", .int(remote.passcodeFailures)),
                        ("remoteRetryAfterSeconds", remoteWait.map(JSONValue.int) ?? .null)]
        }
        if !ledger { members += [("sessions", sessionList), ("watcher", watcher.map { .int(Int($0)) } ?? .null)] }
        if !overridden.isEmpty { members.append(("systemPolicy", systemPolicyNote(overridden, stored: stored))) }
        var text = """
            user:               \(name)
            store:              \(store.path)
            store id:           \(storeID)
            """
        if !ledger {
            text += """

                lock:               \(record.enabled ? "on" : "off")
                enrolled:           \(record.enrolled ? "yes" : "no")
                """
        }
        text += """

            biometric failures: \(record.biometricFailures)\(lockedOut ? " (locked out: use the passcode)" : "")
            passcode failures:  \(record.passcodeFailures)\(wait.map { " (next try in \($0) s)" } ?? "")
            """
        if let remote {
            text += "\nremote failures:    \(remote.passcodeFailures)\(remoteWait.map { " (next remote try in \($0) s)" } ?? "")"
        }
        text += """

            biometric factor:   \(required.map { "passcode required (\($0.rawValue)): \($0.sentence)" } ?? "usable")
            schema version:     \(schemaVersion)
            """
        if !ledger { text += "\nwatcher:            \(watcher.map { "running (pid \($0))" } ?? "none")" }
        for key in overridden {
            text += "\n" + overriddenLine(key, stored: stored, effective: configuration)
        }
        for session in sessions where !ledger {
            text += "\nsession \(session.id): \(session.lifecycle.state.rawValue)\(session.lifecycle.locked ? ", locked" : "")"
        }
        emit(.object(members), text: text)
        return .success
    }

    /// `{"file": "/etc/touchgate.conf", "overridden": {KEY: stored value}}`: the keys whose
    /// stored value is weaker than the system policy allows, so the file's is in effect.
    func systemPolicyNote(_ keys: [Configuration.Key], stored: Configuration) -> JSONValue {
        .object([("file", .string(SystemPolicy.path)),
                 ("overridden", .object(keys.map { ($0.rawValue, stored.jsonValue(of: $0)) }))])
    }

    /// `# grace-seconds=300 is stored, weaker than /etc/touchgate.conf allows: 60 is in effect`.
    func overriddenLine(_ key: Configuration.Key, stored: Configuration, effective: Configuration) -> String {
        "# \(key.rawValue)=\(stored.value(of: key)) is stored, weaker than \(SystemPolicy.path) allows: "
            + "\(effective.value(of: key)) is in effect"
    }

    /// `config get`: the settings of one user (`--user`, `TOUCHGATE_USER`, the invoking user).
    func configGet(_ key: Configuration.Key?) throws -> ExitCode {
        let name = try user
        let store = try openStore()
        try checkLedgerUser(name, in: store)
        let stored = try store.storedConfiguration(user: name)
        let configuration = store.systemPolicy.effective(stored)
        let keys = key.map { [$0] } ?? Configuration.Key.allCases
        let overridden = store.systemPolicy.overridden(in: stored).filter(keys.contains)
        if invocation.json {
            writeLine(STDOUT_FILENO, JSONValue.object([("user", .string(name))]
                + keys.map { ($0.rawValue, configuration.jsonValue(of: $0)) }
                + (overridden.isEmpty ? [] : [("systemPolicy", systemPolicyNote(overridden, stored: stored))])).rendered)
        } else if let key {
            writeLine(STDOUT_FILENO, TerminalText.sanitized(configuration.value(of: key)))
            // The value alone on standard output (scripts read it); why it is not the stored one, beside it.
            if !overridden.isEmpty { printError(String(overriddenLine(key, stored: stored, effective: configuration).dropFirst(2))) }
        } else {
            writeLine(STDOUT_FILENO, "# settings of user \(name.escapedForMessage)")
            for key in keys { writeLine(STDOUT_FILENO, TerminalText.sanitized("\(key.rawValue)=\(configuration.value(of: key))")) }
            for key in overridden { writeLine(STDOUT_FILENO, TerminalText.sanitized(overriddenLine(key, stored: stored, effective: configuration))) }
        }
        return .success
    }

    /// `config set`: changes one user's setting; a bad value changes nothing; while that user's
    /// lock is on, weakening needs that user's device-owner success (``SettingChanges``).
    func configSet(_ key: Configuration.Key, _ text: String, _ options: EvaluationOptions) throws -> ExitCode {
        // Before the store is opened: root acting on a user's store becomes that user to open it.
        let actor = invocationContext.invokingActor()
        let store = try openStore()
        let name = try user
        try checkLedgerUser(name, in: store)
        switch try settingChanges(store: store, options: options).set(key, to: text, reason: options.reason, actor: actor) {
        case .failure(let error):
            return outcome(error, policy: AuthPolicy.deviceOwner.rawValue)
        case .success(let updated):
            emit(.object([("user", .string(name)), (key.rawValue, updated.jsonValue(of: key))]),
                 text: "\(key.rawValue)=\(updated.value(of: key))")
            return .success
        }
    }

    func log(_ limit: Int) throws -> ExitCode {
        let entries = try openStore().auditEntries(limit: limit)
        if invocation.json {
            writeLine(STDOUT_FILENO, JSONValue.object([("entries", .array(entries.map { entry in
                .object([
                    ("id", .int(Int(entry.id))), ("time", .string(isoTime(entry.time))), ("user", .string(entry.user)),
                    ("session", entry.session.map(JSONValue.string) ?? .null),
                    ("policy", entry.policy.map(JSONValue.string) ?? .null), ("factor", .string(entry.factor)),
                    ("outcome", .string(entry.outcome)), ("code", .int(entry.code)),
                    ("change", entry.change.map { change in
                        .object([("key", .string(change.key)), ("old", .string(change.oldValue)),
                                 ("new", .string(change.newValue)), ("by", change.actor.map(JSONValue.string) ?? .null)])
                    } ?? .null),
                ])
            }))]).rendered)
        } else {
            for entry in entries {
                var fields = [isoTime(entry.time), entry.user, entry.session ?? "-", entry.policy ?? "-", entry.factor, entry.outcome]
                if let change = entry.change {
                    fields.append("\(change.key): '\(change.oldValue)' -> '\(change.newValue)'"
                        + (change.actor.map { " by \($0)" } ?? ""))
                }
                // Stored text (session ids, user names, setting values) may hold anything: never raw.
                writeLine(STDOUT_FILENO, TerminalText.sanitized(fields.joined(separator: "  ")))
            }
        }
        return .success
    }
}

/// `2026-11-30T14:52:47Z` for a time in seconds since 1970.
///
/// The corresponding C functions are `gmtime_r` and `strftime`.
package func isoTime(_ seconds: Double) -> String {
    var time = time_t(seconds)
    var parts = tm()
    gmtime_r(&time, &parts)
    var buffer = [CChar](repeating: 0, count: 32)
    let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// `path` from the root: a relative path is taken from the current directory (as the store opens
/// it), so a snippet's commands read the same store wherever they run.
func absolutePath(_ path: String) -> String {
    guard !path.hasPrefix("/"), let cwd = getcwd(nil, 0) else { return path }
    defer { free(cwd) }
    let directory = String(cString: cwd)
    return (directory.hasSuffix("/") ? directory : directory + "/") + path
}
