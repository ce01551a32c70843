import Foundation

extension PAMHost {
    /// As after `user`'s password succeeded through the module in this boot: the ledger's rules
    /// (PasscodeRequirement: no passcode since the boot) let the reader be tried, without a call
    /// of the passcode stack that a test counts.
    func passcodeSucceededInThisBoot(_ user: String = PAMHost.user) throws {
        // The administrator's status makes the ledger when it is not there yet.
        let status = try run([TestEnvironment.binary, "--system", "status", "--user", user])
        guard status.status == 0 else { throw TestFailure("touchgate --system status failed: \(status)") }
        let boot = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try ledger("""
            INSERT INTO users (name) VALUES ('\(user)') ON CONFLICT (name) DO NOTHING;
            UPDATE users SET last_passcode_success = (julianday('now') - 2440587.5) * 86400.0, last_passcode_boot = '\(boot)' WHERE name = '\(user)';
            """)
    }
}
