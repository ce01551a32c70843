import TouchGateCore

extension Store {
    /// The stored state of `user`; a user never seen has the defaults (lock off, not enrolled).
    public func user(_ name: String) throws(StoreError) -> UserRecord {
        try perform { try readUser(name) }
    }

    func readUser(_ name: String) throws -> UserRecord {
        var record = UserRecord(name: name)
        let rows = try database.rows("""
            SELECT enabled, enrolled, domain_state, biometric_failures, passcode_failures,
                   last_passcode_failure, last_success,
                   last_passcode_success, last_passcode_boot, last_biometric_success, lockdown, admin_lock,
                   (SELECT max(time) FROM audit WHERE audit.user = users.name)
            FROM users WHERE name = ?
            """, .text(name))
        if let row = rows.first {
            record.enabled = row[0].int == 1
            record.enrolled = row[1].int == 1
            record.domainState = row[2].string
            record.biometricFailures = row[3].int ?? 0
            record.passcodeFailures = row[4].int ?? 0
            record.lastPasscodeFailure = row[5].double
            record.lastSuccess = row[6].double
            record.lastPasscodeSuccess = row[7].double
            record.lastPasscodeBoot = row[8].string
            record.lastBiometricSuccess = row[9].double
            record.lockdown = row[10].int != 0
            record.adminLock = row[11].int != 0
            record.latestEntry = row[12].double
        }
        return record
    }

    /// The users with a failure counted, locally or by remote hosts (a biometric lockout or
    /// passcode throttling among them), or under a lockdown (their own or an administrator's),
    /// by name: what `touchgate --system status` lists, as `faillock` does.
    public func usersWithFailuresOrLockdowns() throws(StoreError) -> [UserRecord] {
        try perform {
            try database.rows("""
                SELECT name FROM users WHERE biometric_failures > 0 OR passcode_failures > 0 OR lockdown != 0 OR admin_lock != 0
                UNION SELECT name FROM remote_passcode_tries WHERE failures > 0
                ORDER BY name
                """).compactMap { $0[0].string }.map(readUser)
        }
    }

    /// Whether the store holds anything of `name`: a record or a setting.
    public func knows(user name: String) throws(StoreError) -> Bool {
        try perform {
            try database.scalar("""
                SELECT EXISTS (SELECT 1 FROM users WHERE name = ?1) OR EXISTS (SELECT 1 FROM user_config WHERE user = ?1)
                """, .text(name))?.int == 1
        }
    }

    private func ensureUser(_ name: String) throws {
        try database.run("INSERT INTO users (name) VALUES (?) ON CONFLICT (name) DO NOTHING", .text(name))
    }

    /// Turns the lock on or off for `user` and records it in the audit log.
    public func setEnabled(_ enabled: Bool, user: String, session: String?) throws(StoreError) {
        try perform {
            try database.transaction(.immediate) {
                try ensureUser(user)
                try database.run("UPDATE users SET enabled = ? WHERE name = ?", DatabaseValue(enabled), .text(user))
                try appendAudit(user: user, session: session, policy: enabled ? .enable : .disable,
                                factor: .setting, outcome: enabled ? .enabled : .disabled)
            }
        }
    }

    /// Records or removes the biometric enrollment; each change gets a new domain state.
    public func setEnrolled(_ enrolled: Bool, user: String, session: String?) throws(StoreError) {
        var random = SystemRandomNumberGenerator()
        let token = (0..<16).map { _ in
            let byte = UInt8.random(in: 0...255, using: &random)
            return String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
        }.joined()
        try perform {
            try database.transaction(.immediate) {
                try ensureUser(user)
                try database.run(
                    "UPDATE users SET enrolled = ?, domain_state = ?, biometric_failures = 0 WHERE name = ?",
                    DatabaseValue(enrolled), enrolled ? .text(token) : .null, .text(user))
                try appendAudit(user: user, session: session, policy: enrolled ? .enroll : .unenroll,
                                factor: .setting, outcome: enrolled ? .enrolled : .unenrolled)
            }
        }
    }

    /// Clears the biometric lockout and the passcode throttling of `user` (local and remote);
    /// the audit entry records what was cleared and `actor`, who cleared it (for an
    /// administrator: who they logged in as and who ran sudo), as the change of the key `counters`.
    public func resetCounters(user: String, session: String?, actor: String? = nil) throws(StoreError) {
        try perform {
            try database.transaction(.immediate) {
                try ensureUser(user)
                let before = try readUser(user)
                try database.run("""
                    UPDATE users SET biometric_failures = 0, passcode_failures = 0, last_passcode_failure = NULL
                    WHERE name = ?
                    """, .text(user))
                // And the remote hosts' passcode budget (migration 0006).
                try database.run("DELETE FROM remote_passcode_tries WHERE name = ?", .text(user))
                try appendAudit(user: user, session: session, policy: .reset, factor: .setting, outcome: .reset,
                                change: SettingChange(
                                    key: "counters",
                                    oldValue: "biometric-failures=\(before.biometricFailures) passcode-failures=\(before.passcodeFailures)",
                                    newValue: "biometric-failures=0 passcode-failures=0", actor: actor))
            }
        }
    }
}
