import TouchGateCore

extension Store {
    /// How long a session row, or a tmux client's, is kept after its last change: a session the
    /// store does not know is locked while the lock is on, so forgetting one never opens it.
    public static let sessionRetentionSeconds: Double = 30 * 86_400

    /// How long a `pending` audit entry is kept beyond `log-retention`: its process may still be
    /// waiting at a prompt and settle it, and a process killed during a check leaves one for
    /// good, which records that a secret reached PAM.
    public static let pendingRetentionSeconds: Double = 30 * 86_400

    /// Deletes `user`'s audit entries beyond their `log-retention` newest, except `pending` ones
    /// younger than ``pendingRetentionSeconds``. Runs inside the caller's write transaction.
    /// The system policy's `log-retention`, when it sets one, is the fewest kept.
    ///
    /// Bounded: in the steady state it deletes the one entry the caller's insert pushed out,
    /// found through the `audit_by_user` index.
    func pruneAudit(user: String) throws {
        try database.run("""
            DELETE FROM audit WHERE user = ?1 AND (outcome <> 'pending' OR time < ?2) AND id <= (
                SELECT id FROM audit WHERE user = ?1 ORDER BY id DESC LIMIT 1 OFFSET max(?3, coalesce(
                    (SELECT CAST(value AS INTEGER) FROM user_config WHERE user = ?1 AND key = 'log-retention'), ?4)))
            """, .text(user), .real(clock.now - Self.pendingRetentionSeconds),
            .integer(Int64(max(Configuration.minimumLogRetention,
                               systemPolicy.keys.contains(.logRetention) ? systemPolicy.limits.logRetention : 0))),
            .integer(Int64(Configuration().logRetention)))
    }

    /// Deletes session rows that ended (`notRunning`) or were not changed for
    /// ``sessionRetentionSeconds``, except `id`, which the caller is writing. A `notRunning` row
    /// that holds a prompt claim stays until the claim is released: a `did-enter-background`
    /// finds the waiting `auth` through it.
    func pruneSessions(keeping id: String) throws {
        try database.run("""
            DELETE FROM sessions WHERE id <> ? AND ((state = 'notRunning' AND prompt_pid IS NULL) OR updated < ?)
            """, .text(id), .real(clock.now - Self.sessionRetentionSeconds))
    }
}
