import TouchGateCore
import TouchGateSystem



extension Store {
    /// Checks the lockout and counts the attempt as a failure in one `BEGIN IMMEDIATE` transaction,
    /// before PAM is called.
    ///
    /// This is the write-ahead step: however many processes try at once, each sees the count the
    /// others left, so no more attempts than allowed reach PAM, and a process killed during the
    /// check leaves its failure counted. The commit is synced, but a checkpoint it makes due is
    /// left to ``foldLogInBackground()``, to run while PAM does.
    public func admitAttempt(
        _ factor: Factor, user: String, session: String?, purpose: AuditPolicy?, configuration: Configuration
    ) throws(StoreError) -> Admission {
        try perform {
            try database.transaction(.immediate, checkpoint: .deferred) {
                try database.run("INSERT INTO users (name) VALUES (?) ON CONFLICT (name) DO NOTHING", .text(user))
                let record = try readUser(user)
                let now = clock.now
                switch factor {
                case .biometric:
                    // The passcode rules again, in the admitting transaction: a lockdown written
                    // since the evaluation read the record is seen here, before any PAM call.
                    if let refusal = passcodeRuleRefusal(record: record, configuration: configuration, now: now) {
                        try appendAudit(user: user, session: session, policy: purpose, factor: AuditFactor(factor),
                                        outcome: .error(.biometryLockout))
                        return refusal
                    }
                    try database.run("UPDATE users SET biometric_failures = biometric_failures + 1 WHERE name = ?", .text(user))
                case .passcode:
                    if let wait = LockoutPolicy(configuration: configuration).passcodeRetryAfter(
                        failures: record.passcodeFailures, lastFailure: record.lastPasscodeFailure, now: now) {
                        try appendAudit(user: user, session: session, policy: purpose, factor: AuditFactor(factor),
                                        outcome: .throttled)
                        return .throttled(retryAfterSeconds: wait)
                    }
                    try database.run("""
                        UPDATE users SET passcode_failures = passcode_failures + 1, last_passcode_failure = ?
                        WHERE name = ?
                        """, .real(now), .text(user))
                }
                try appendAudit(user: user, session: session, policy: purpose, factor: AuditFactor(factor),
                                outcome: .pending, prune: false)
                return .admitted(attempt: database.lastInsertedRowID)
            }
        }
    }

    /// How many seconds the passcode is still throttled for `user`, with an audit entry
    /// `throttled` when it is; `nil` (and nothing written) when a try may be made.
    ///
    /// Asked before touchgate's own passcode prompt opens, so a throttled user is told to wait
    /// rather than asked; it counts nothing: the try is admitted only once its answer is submitted
    /// (``admitAttempt(_:user:session:purpose:configuration:)``, which checks again).
    public func passcodeRetryAfter(
        user: String, session: String?, purpose: AuditPolicy?, configuration: Configuration
    ) throws(StoreError) -> Int? {
        let record = try self.user(user)
        guard let wait = LockoutPolicy(configuration: configuration).passcodeRetryAfter(
            failures: record.passcodeFailures, lastFailure: record.lastPasscodeFailure, now: clock.now) else { return nil }
        try perform {
            try database.transaction(.immediate, durability: .cached, checkpoint: .deferred) {
                try database.run("INSERT INTO users (name) VALUES (?) ON CONFLICT (name) DO NOTHING", .text(user))
                try appendAudit(user: user, session: session, policy: purpose, factor: .passcode, outcome: .throttled)
            }
        }
        return wait
    }

    /// Folds the write-ahead log into the file on a helper thread, if an admission left it at its
    /// limit; `nil` when there is nothing to fold. Join the helper before the next transaction,
    /// which would otherwise start a checkpoint of its own.
    package func foldLogInBackground() -> HelperThread? {
        database.foldLogInBackground()
    }

    /// Settles an attempt admitted by ``admitAttempt(_:user:session:purpose:configuration:)``.
    ///
    /// Not synced to the disk before it returns: the admission already counted the attempt as
    /// a failure and was synced, so a power cut that loses the settlement leaves that failure
    /// counted (and the audit entry `pending`), never fewer failures than there were.
    public func finishAttempt(_ attempt: Int64, user: String, factor: Factor, result: AttemptResult) throws(StoreError) {
        try perform {
            try database.transaction(.immediate, durability: .cached, checkpoint: .deferred) {
                let now = clock.now
                let settlement = CounterSettlement(result)
                var set = factor == .passcode
                    ? settlement.assignments(failures: "passcode_failures", lastFailure: "last_passcode_failure", now: now)
                    : settlement.assignments(failures: "biometric_failures", lastFailure: nil, now: now)
                // A passcode verified also clears the biometric lockout, as on iOS.
                if factor == .passcode, settlement == .clear, let counted = set {
                    set = (counted.sql + ", biometric_failures = 0", counted.arguments)
                }
                if result == .success, let counted = set {
                    set = (counted.sql + ", last_success = ?", counted.arguments + [.real(now)])
                }
                if let set {
                    try database.run("UPDATE users SET \(set.sql) WHERE name = ?", arguments: set.arguments + [.text(user)])
                }
                if result == .success { try recordUnlock(factor, user: user, now: now) }
                let outcome = AuditOutcome(settling: result)
                try database.run("UPDATE audit SET outcome = ?, code = ? WHERE id = ?",
                                 .text(outcome.rawValue), .integer(Int64(outcome.code)), .integer(attempt))
                try pruneAudit(user: user)
            }
        }
    }
}
