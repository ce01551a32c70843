import TouchGateCore

extension Store {
    /// `user`'s settings in effect: what the store holds (``storedConfiguration(user:)``) made
    /// at least as strict as `/etc/touchgate.conf` allows (``SystemPolicy/effective(_:)``).
    ///
    /// Every reader of a setting comes here (evaluations, the gate, the PAM module's helper on
    /// the ledger), so none can act on a value the system policy does not allow.
    public func configuration(user: String) throws(StoreError) -> Configuration {
        systemPolicy.effective(try storedConfiguration(user: user))
    }

    /// `user`'s settings as the store holds them, with defaults for keys never set for them.
    ///
    /// Applied row by row in key order, so that of two bad values the same one is always
    /// reported (a dictionary's order changes from one process to the next).
    public func storedConfiguration(user: String) throws(StoreError) -> Configuration {
        try perform {
            var configuration = Configuration()
            for row in try database.rows("SELECT key, value FROM user_config WHERE user = ? ORDER BY key", .text(user)) {
                if let name = row[0].string, let key = Configuration.Key(rawValue: name), let value = row[1].string {
                    try configuration.set(key, to: value)
                }
            }
            return configuration
        }
    }

    /// Stores `configuration`'s value for `key` as `user`'s, and records the change (the old and
    /// new value, and `actor`, who made it) in the audit log, in one transaction.
    ///
    /// - Returns: the value it replaced.
    @discardableResult
    public func save(
        _ key: Configuration.Key, from configuration: Configuration, user: String, session: String?, actor: String?
    ) throws(StoreError) -> String {
        try perform {
            try database.transaction(.immediate) {
                let old = try database.scalar("SELECT value FROM user_config WHERE user = ? AND key = ?",
                                              .text(user), .text(key.rawValue))?.string ?? key.defaultValue
                let new = configuration.value(of: key)
                try database.run("""
                    INSERT INTO user_config (user, key, value) VALUES (?, ?, ?)
                    ON CONFLICT (user, key) DO UPDATE SET value = excluded.value
                    """, .text(user), .text(key.rawValue), .text(new))
                try appendAudit(user: user, session: session, policy: .config, factor: .setting, outcome: .changed,
                                change: SettingChange(key: key.rawValue, oldValue: old, newValue: new, actor: actor))
                return old
            }
        }
    }
}

extension Store {
    /// Sets `key` to `text` for `user` in one call: validates it against the user's current
    /// settings, stores it and records the change, as `touchgate config set` does (without its
    /// device-owner check for a change that weakens the lock, which is the caller's to make).
    ///
    /// A test sets up its lockout policy with this: `try store.set(.passcodeDelays, to: "0,0,60", user: "alice")`.
    /// - Throws: ``Configuration/InvalidValue`` or ``SystemPolicy/Refusal`` (nothing is stored), or ``StoreError``.
    /// - Returns: the value it replaced.
    @discardableResult
    public func set(
        _ key: Configuration.Key, to text: String, user: String, session: String? = nil, actor: String? = nil
    ) throws -> String {
        var configuration = try storedConfiguration(user: user)
        try configuration.set(key, to: text)
        try systemPolicy.check(key, in: configuration)
        return try save(key, from: configuration, user: user, session: session, actor: actor)
    }
}
