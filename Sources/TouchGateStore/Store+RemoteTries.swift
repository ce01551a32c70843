import TouchGateCore

extension Store {
    /// `user`'s record with the remote hosts' passcode budget (`remote_passcode_tries`) in place
    /// of the local keyboard's: what a remote try is decided and worded on.
    public func remoteUser(_ name: String) throws(StoreError) -> UserRecord {
        try perform {
            var record = try readUser(name)
            let rows = try database.rows("SELECT failures, last_failure FROM remote_passcode_tries WHERE name = ?", .text(name))
            record.passcodeFailures = rows.first?[0].int ?? 0
            record.lastPasscodeFailure = rows.first?[1].double
            return record
        }
    }

    /// ``admitAttempt(_:user:session:purpose:configuration:)`` for a remote host's passcode try:
    /// the lockout checked and the try counted in `remote_passcode_tries`, in one `BEGIN IMMEDIATE`
    /// transaction, before PAM is called. The biometric factor is never a remote host's.
    ///
    /// No `users` row is written: a remote host's tries never change the local keyboard's budget.
    public func admitRemotePasscodeAttempt(
        user: String, session: String?, purpose: AuditPolicy?, configuration: Configuration
    ) throws(StoreError) -> Admission {
        try perform {
            try database.transaction(.immediate, checkpoint: .deferred) {
                try database.run("INSERT INTO remote_passcode_tries (name) VALUES (?) ON CONFLICT (name) DO NOTHING", .text(user))
                let rows = try database.rows("SELECT failures, last_failure FROM remote_passcode_tries WHERE name = ?", .text(user))
                let now = clock.now
                if let wait = LockoutPolicy(configuration: configuration).passcodeRetryAfter(
                    failures: rows.first?[0].int ?? 0, lastFailure: rows.first?[1].double, now: now) {
                    try appendAudit(user: user, session: session, policy: purpose, factor: .passcode, outcome: .throttled)
                    return .throttled(retryAfterSeconds: wait)
                }
                try database.run("UPDATE remote_passcode_tries SET failures = failures + 1, last_failure = ? WHERE name = ?",
                                 .real(now), .text(user))
                try appendAudit(user: user, session: session, policy: purpose, factor: .passcode, outcome: .pending, prune: false)
                return .admitted(attempt: database.lastInsertedRowID)
            }
        }
    }

    /// Settles a remote try admitted by ``admitRemotePasscodeAttempt(user:session:purpose:configuration:)``:
    /// a success clears the remote hosts' count only (the local keyboard's and the biometric
    /// lockout are the local user's), a try that never reached PAM is uncounted.
    public func finishRemotePasscodeAttempt(_ attempt: Int64, user: String, result: AttemptResult) throws(StoreError) {
        try perform {
            try database.transaction(.immediate, durability: .cached, checkpoint: .deferred) {
                let now = clock.now
                if let set = CounterSettlement(result).assignments(failures: "failures", lastFailure: "last_failure", now: now) {
                    try database.run("UPDATE remote_passcode_tries SET \(set.sql) WHERE name = ?", arguments: set.arguments + [.text(user)])
                }
                let outcome = AuditOutcome(settling: result)
                try database.run("UPDATE audit SET outcome = ?, code = ? WHERE id = ?",
                                 .text(outcome.rawValue), .integer(Int64(outcome.code)), .integer(attempt))
                try pruneAudit(user: user)
            }
        }
    }
}
