import Foundation

extension TestEnvironment {
    /// This machine's boot id, as touchgate reads it.
    static var bootID: String {
        ((try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// As after a passcode success of `user` in this boot, for a test that wrote the user's row
    /// itself: the rules (PasscodeRequirement) let the finger be tried.
    func passcodeSucceededInThisBoot() throws {
        _ = try sqlite("""
            UPDATE users SET last_passcode_success = (julianday('now') - 2440587.5) * 86400.0, last_passcode_boot = '\(Self.bootID)'
            WHERE name = '\(user)'
            """)
    }
}
