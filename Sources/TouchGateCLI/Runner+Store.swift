import Glibc
import TouchGate

extension Runner {
    /// The store; with `--store-id`, only the store of that id (a missing store is not created).
    /// When this process made it while the session's integration reads a store, it says so on
    /// standard error (``InvocationContext/newStoreNotice(_:forSnippet:)``).
    func openStore() throws -> Store {
        let path = try storePath
        try invocationContext.actAsTheUserWhoseStoreThisIs(path)
        let store = try Store(path: path, expectedID: invocation.storeID, clock: clock)
        if let notice = invocationContext.newStoreNotice(store) { printError(notice) }
        try reportSystemPolicyProblem(of: store)
        return store
    }

    /// `status`: one user's state; with `--system`, the ledger's (no lock, enrollment, sessions
    /// or watcher there), and without a user every user of the ledger with a failure counted.
    func status() throws -> ExitCode {
        let store = try openStore()
        if invocation.system, (invocationContext.namedUser ?? "").isEmpty {
            return try ledgerStatus(store)
        }
        let name = try user
        try checkLedgerUser(name, in: store)
        let report = try StatusReport.read(store: store, user: name, ledger: invocation.system, probe: probe)
        emit(report.json, text: report.text)
        return .success
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
                + (overridden.isEmpty ? [] : [("systemPolicy", StatusReport.systemPolicyNote(overridden, stored: stored))])).rendered)
        } else if let key {
            writeLine(STDOUT_FILENO, TerminalText.sanitized(configuration.value(of: key)))
            // The value alone on standard output (scripts read it); why it is not the stored one, beside it.
            if !overridden.isEmpty { printError(String(StatusReport.overriddenLine(key, stored: stored, effective: configuration).dropFirst(2))) }
        } else {
            writeLine(STDOUT_FILENO, "# settings of user \(name.escapedForMessage)")
            for key in keys { writeLine(STDOUT_FILENO, TerminalText.sanitized("\(key.rawValue)=\(configuration.value(of: key))")) }
            for key in overridden { writeLine(STDOUT_FILENO, TerminalText.sanitized(StatusReport.overriddenLine(key, stored: stored, effective: configuration))) }
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
            writeLine(STDOUT_FILENO, JSONValue.object([("entries", .array(entries.map(\.jsonValue)))]).rendered)
        } else {
            for entry in entries { writeLine(STDOUT_FILENO, entry.line) }
        }
        return .success
    }
}
