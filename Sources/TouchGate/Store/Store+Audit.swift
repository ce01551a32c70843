/// One line of the audit trail. It names what happened, never what was typed.
public struct AuditEntry: Equatable, Sendable {
    public var id: Int64
    public var time: Double
    public var user: String
    public var session: String?
    public var policy: String?
    public var factor: String
    public var outcome: String
    public var code: Int
}

extension Store {
    func appendAudit(user: String, session: String?, policy: String?, factor: String, outcome: String, code: Int) throws {
        try database.run(
            "INSERT INTO audit (time, user, session, policy, factor, outcome, code) VALUES (?, ?, ?, ?, ?, ?, ?)",
            .real(clock.now), .text(user), DatabaseValue(session), DatabaseValue(policy), .text(factor),
            .text(outcome), .integer(Int64(code)))
    }

    /// Records an outcome that needed no credential check (reuse, a refused preflight, a toggle's result).
    public func recordOutcome(user: String, session: String?, policy: String?, factor: String, outcome: String, code: Int) throws(StoreError) {
        try perform { try appendAudit(user: user, session: session, policy: policy, factor: factor, outcome: outcome, code: code) }
    }

    /// The newest `limit` entries, oldest first.
    public func auditEntries(limit: Int) throws(StoreError) -> [AuditEntry] {
        try perform {
            try database.rows("""
                SELECT id, time, user, session, policy, factor, outcome, code FROM
                    (SELECT * FROM audit ORDER BY id DESC LIMIT ?) ORDER BY id
                """, .integer(Int64(limit))).map { row in
                AuditEntry(id: Int64(row[0].int ?? 0), time: row[1].double ?? 0, user: row[2].string ?? "",
                           session: row[3].string, policy: row[4].string, factor: row[5].string ?? "",
                           outcome: row[6].string ?? "", code: row[7].int ?? 0)
            }
        }
    }
}
