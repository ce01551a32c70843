import TouchGateCore
import TouchGateStore
import TouchGateSystem

/// `touchgate status`: what one user's store (or the system ledger) holds now, as one JSON
/// object and as the lines a person reads, worked out here once so the CLI only prints it.
///
/// The sessions are shown as a return now would find them (a background session past its
/// grace is locked); the ledger (`system`) has no lock to turn on, no enrollment, no sessions
/// and no watcher, and counts remote hosts' passcode tries apart (docs/security.md).
package struct StatusReport {
    package var json: JSONValue
    package var text: String

    /// The status of user `name` in `store`; `ledger`: the store is the system ledger.
    package static func read(store: Store, user name: String, ledger: Bool, probe: any ProcessProbe) throws -> StatusReport {
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
        let sessions = try LifecycleEvents(store: store, user: name, probe: probe)
            .sessionsAsReturningNow(policy: LifecycleEvents.policy(record, configuration))
        let sessionList = JSONValue.array(sessions.map { session in
            .object([("id", .string(session.id)), ("state", .string(session.lifecycle.state.rawValue)),
                     ("locked", .bool(session.lifecycle.locked))])
        })
        let schemaVersion = try store.schemaVersion()
        let storeID = try store.storeID()
        let watcher = ledger ? nil : WatcherLock.holder(store: store.path, user: name)
        var members: [(String, JSONValue)] = [("user", .string(name)), ("store", .string(store.path.string)), ("storeId", .string(storeID))]
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
        return StatusReport(json: .object(members), text: text)
    }

    /// `attemptsLeft` (per factor: wrong tries left before the biometric lockout, or before the
    /// passcode's next wait; `null`: no biometric factor, or no wait will come) and
    /// `passcodeDelaySeconds` (that wait), as the store has them now: for `auth` and `status`.
    package static func attemptsLeft(store: Store, user: String) throws -> [(String, JSONValue)] {
        let record = try store.user(user)
        let configuration = try store.configuration(user: user)
        let lockout = LockoutPolicy(configuration: configuration)
        let biometric: JSONValue = record.hasBiometricFactor(under: configuration)
            ? .int(lockout.biometricAttemptsLeft(failures: record.biometricFailures)) : .null
        let passcode = lockout.attemptsLeft(.passcode, record: record)
        return [
            ("attemptsLeft", .object([("biometric", biometric), ("passcode", passcode.beforeStop.map(JSONValue.int) ?? .null)])),
            ("passcodeDelaySeconds", passcode.delaySeconds.map(JSONValue.int) ?? .null),
        ]
    }

    /// `{"file": "/etc/touchgate.conf", "overridden": {KEY: stored value}}`: the keys whose
    /// stored value is weaker than the system policy allows, so the file's is in effect.
    package static func systemPolicyNote(_ keys: [Configuration.Key], stored: Configuration) -> JSONValue {
        .object([("file", .string(SystemPolicy.path)),
                 ("overridden", .object(keys.map { ($0.rawValue, stored.jsonValue(of: $0)) }))])
    }

    /// `# grace-seconds=300 is stored, weaker than /etc/touchgate.conf allows: 60 is in effect`.
    package static func overriddenLine(_ key: Configuration.Key, stored: Configuration, effective: Configuration) -> String {
        "# \(key.rawValue)=\(stored.value(of: key)) is stored, weaker than \(SystemPolicy.path) allows: "
            + "\(effective.value(of: key)) is in effect"
    }

    /// `touchgate --system status` without a user: every user of the ledger with a failure
    /// counted (the local keyboard's and remote hosts' budgets apart) or a lockdown, when each can
    /// try again and why the passcode is required, as `faillock` lists them.
    package static func ledger(_ store: Store) throws -> StatusReport {
        let now = store.clock.now
        let schemaVersion = try store.schemaVersion()
        let storeID = try store.storeID()
        var rows: [JSONValue] = []
        var lines: [String] = []
        func columns(_ words: [String]) -> String {
            var line = words.map { $0.count >= 16 ? $0 : $0 + String(repeating: " ", count: 16 - $0.count) }.joined(separator: " ")
            while line.last == " " { line.removeLast() }
            return line
        }
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
            rows.append(.object([
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
            ]))
            let lock = [record.lockdown ? "lockdown" : nil, record.adminLock ? "admin" : nil].compactMap { $0 }
            let biometric = "\(record.biometricFailures)\(lockedOut ? " (locked out)" : "")"
            let passcode = wait.map { "in \($0) s (\(isoTime(now + Double($0))))" } ?? "now"
            let remoteAgain = remoteWait.map { "in \($0) s" } ?? "now"
            lines.append(columns([record.name, biometric, String(record.passcodeFailures), passcode,
                                  String(remote.passcodeFailures), remoteAgain, lock.isEmpty ? "-" : lock.joined(separator: "+"),
                                  required?.rawValue ?? "-"]))
        }
        let json = JSONValue.object([
            ("store", .string(store.path.string)),
            ("storeId", .string(storeID)),
            ("schemaVersion", .int(schemaVersion)),
            ("users", .array(rows)),
        ])
        var text = """
            store:              \(store.path)
            store id:           \(storeID)
            schema version:     \(schemaVersion)
            """
        if lines.isEmpty {
            text += "\nno user has a failure counted or a lockdown"
        } else {
            text += "\n" + columns(["USER", "BIOMETRIC", "PASSCODE", "PASSCODE AGAIN", "REMOTE", "REMOTE AGAIN", "LOCK",
                                     "PASSCODE REQUIRED"])
            for line in lines { text += "\n" + line }
        }
        return StatusReport(json: json, text: text)
    }
}
