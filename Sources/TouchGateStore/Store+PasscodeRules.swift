import TouchGateCore
import TouchGateSystem

extension Store {
    /// Records an unlock by `factor` for ``PasscodeRequirement``, in the settling transaction of
    /// ``finishAttempt(_:user:factor:result:)``: a passcode success keeps its time and the boot
    /// id and lifts both lockdowns; a biometric success keeps its time.
    ///
    /// Each time is the greatest seen, so a clock that went backwards never makes a rule younger.
    func recordUnlock(_ factor: Factor, user: String, now: Double) throws {
        switch factor {
        case .passcode:
            try database.run("""
                UPDATE users SET last_passcode_success = max(coalesce(last_passcode_success, ?1), ?1),
                       last_passcode_boot = ?2, lockdown = 0, admin_lock = 0
                WHERE name = ?3
                """, .real(now), BootID.current().map(DatabaseValue.text) ?? .null, .text(user))
        case .biometric:
            try database.run("""
                UPDATE users SET last_biometric_success = max(coalesce(last_biometric_success, ?1), ?1) WHERE name = ?2
                """, .real(now), .text(user))
        }
    }

    /// Turns the biometric factor off for `user` until their next passcode success: the user's
    /// own `touchgate lockdown`, or (`byAdministrator`) `touchgate --system lockdown --user NAME`.
    ///
    /// Needs no authentication: it only makes the lock stricter. The audit log records it as
    /// the change of the key `lockdown` (or `admin-lock`) by `actor`.
    public func lockdown(user: String, byAdministrator: Bool, session: String?, actor: String? = nil) throws(StoreError) {
        let column = byAdministrator ? "admin_lock" : "lockdown"
        try perform {
            try database.transaction(.immediate) {
                try database.run("INSERT INTO users (name) VALUES (?) ON CONFLICT (name) DO NOTHING", .text(user))
                let before = try readUser(user)
                try database.run("UPDATE users SET \(column) = 1 WHERE name = ?", .text(user))
                let was = byAdministrator ? before.adminLock : before.lockdown
                try appendAudit(user: user, session: session, policy: .config, factor: .setting, outcome: .changed,
                                change: SettingChange(key: byAdministrator ? "admin-lock" : "lockdown",
                                                      oldValue: was ? "on" : "off", newValue: "on", actor: actor))
            }
        }
    }
}

extension Store {
    /// The admission's refusal of the finger for `record` as the admitting transaction read it:
    /// ``Admission/lockedOut`` after the failures, ``Admission/passcodeRequired(_:)`` for any
    /// other rule of ``PasscodeRequirement``; `nil` when the finger may be tried.
    func passcodeRuleRefusal(record: UserRecord, configuration: Configuration, now: Double) -> Admission? {
        if LockoutPolicy(configuration: configuration).biometricLockedOut(failures: record.biometricFailures) { return .lockedOut }
        guard let reason = PasscodeRequirement(configuration: configuration).reason(for: record, bootID: BootID.current(), now: now)
        else { return nil }
        return reason == .failures ? .lockedOut : .passcodeRequired(reason)
    }
}

