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

extension PAMHost {
    /// Makes `pam/test/faketime-helper.bash` the helper and the built helper its
    /// `touchgate-pam-helper.real`: each run's clock is then shifted by what the namespace's
    /// /run/touchgate/faketime says (``shiftedScript(hours:otherBoot:_:)`` writes it).
    func shiftsTheHelpersClock() throws {
        let helper = path + "/touchgate-pam-helper"
        try FileManager.default.moveItem(atPath: helper, toPath: helper + ".real")
        try FileManager.default.copyItem(
            atPath: TestEnvironment.packageRoot.appendingPathComponent("pam/test/faketime-helper.bash").path, toPath: helper)
    }

    /// A script for ``script(_:input:bus:timeout:)`` that runs `command` with the helper's clock
    /// `hours` ahead and, when `otherBoot`, another boot id bound over
    /// /proc/sys/kernel/random/boot_id (the namespace's mount alone).
    func shiftedScript(hours: Int, otherBoot: Bool, _ command: [String]) throws -> String {
        var lines = ["set -e", "printf '%s\\n' '+\(hours)h' > /run/touchgate/faketime"]
        if otherBoot {
            try "0b6f3a4e-1c1d-4d6e-9a57-0c1a2b3c4d5e\n".write(toFile: path + "/boot_id", atomically: true, encoding: .utf8)
            lines.append("mount --bind '\(path)/boot_id' /proc/sys/kernel/random/boot_id")
        }
        lines.append("exec " + command.map { "'\($0)'" }.joined(separator: " "))
        return lines.joined(separator: "\n")
    }
}
