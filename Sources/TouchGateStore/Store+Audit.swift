import TouchGateCore



extension Store {
    /// Appends an entry; unless `prune` is false, also deletes `user`'s entries beyond their
    /// `log-retention` (``pruneAudit(user:)``), in the caller's transaction.
    ///
    /// The admission before a credential check passes `prune: false`: its commit is synced
    /// before PAM runs, and the settlement after PAM prunes instead.
    ///
    /// The vocabulary is typed (``AuditPolicy``, ``AuditFactor``, ``AuditOutcome``); the columns
    /// hold their raw values, and `code` is the outcome's (``AuditOutcome/code``).
    func appendAudit(
        user: String, session: String?, policy: AuditPolicy?, factor: AuditFactor, outcome: AuditOutcome,
        change: SettingChange? = nil, prune: Bool = true
    ) throws {
        // The change's columns are NULL for every other entry.
        try database.run("""
            INSERT INTO audit (time, user, session, policy, factor, outcome, code, setting, old_value, new_value, actor)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            .real(clock.now), .text(user), DatabaseValue(session), DatabaseValue(policy?.rawValue), .text(factor.rawValue),
            .text(outcome.rawValue), .integer(Int64(outcome.code)), DatabaseValue(change?.key), DatabaseValue(change?.oldValue),
            DatabaseValue(change?.newValue), DatabaseValue(change?.actor))
        if prune { try pruneAudit(user: user) }
    }

    /// Records an outcome that needed no credential check (reuse, a refused preflight, a toggle's result).
    public func recordOutcome(
        user: String, session: String?, policy: AuditPolicy?, factor: AuditFactor, outcome: AuditOutcome
    ) throws(StoreError) {
        try perform {
            try database.transaction(.immediate) {
                try appendAudit(user: user, session: session, policy: policy, factor: factor, outcome: outcome)
            }
        }
    }

    /// The newest `limit` entries, oldest first.
    public func auditEntries(limit: Int) throws(StoreError) -> [AuditEntry] {
        try perform {
            try database.rows("""
                SELECT id, time, user, session, policy, factor, outcome, code, setting, old_value, new_value, actor FROM
                    (SELECT * FROM audit ORDER BY id DESC LIMIT ?) ORDER BY id
                """, .integer(Int64(limit))).map { row in
                AuditEntry(id: Int64(row[0].int ?? 0), time: row[1].double ?? 0, user: row[2].string ?? "",
                           session: row[3].string, policy: row[4].string, factor: row[5].string ?? "",
                           outcome: row[6].string ?? "", code: row[7].int ?? 0,
                           change: row[8].string.map { key in
                               SettingChange(key: key, oldValue: row[9].string ?? "", newValue: row[10].string ?? "",
                                             actor: row[11].string)
                           })
            }
        }
    }
}
