import Foundation
import Testing

/// The rules that refuse the finger and require the passcode, end to end with the real binary:
/// the whole process's clock shifted by faketime, another boot id bound over
/// /proc/sys/kernel/random/boot_id in a private mount namespace, `touchgate lockdown`.
@Suite struct PasscodeRulesTests {
    static let biometric = "touchgate-biometric"

    /// `touchgate ARGUMENTS` with the process's clock `hours` ahead (libfaketime, preloaded into
    /// the dynamically linked binary: every clock_gettime it makes is shifted).
    private func shifted(_ world: TestEnvironment, hours: Int, _ arguments: [String], input: String? = nil) throws -> RunResult {
        try TestEnvironment.execute("/usr/bin/faketime", ["-f", "+\(hours)h", TestEnvironment.binary] + arguments,
                                    input: input, environment: world.environment)
    }

    /// `touchgate ARGUMENTS` in a private mount namespace whose boot id is another.
    private func afterARestart(_ world: TestEnvironment, _ arguments: [String], input: String? = nil) throws -> RunResult {
        let bootID = world.directory.appendingPathComponent("boot_id").path
        try "0b6f3a4e-1c1d-4d6e-9a57-0c1a2b3c4d5e\n".write(toFile: bootID, atomically: true, encoding: .utf8)
        let script = "mount --bind \"$1\" /proc/sys/kernel/random/boot_id && shift && exec \"$@\""
        return try TestEnvironment.execute(
            "/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh", bootID, TestEnvironment.binary] + arguments,
            input: input, environment: world.environment)
    }

    @Test func theFingerWorksAfterThePasscodeOfThisBoot() throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        let calls = world.calls(Self.biometric)
        let auth = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        CoreExpect.outcome(auth, "success", policy: "biometrics")
        #expect(world.calls(Self.biometric) == calls + 1)
        #expect(try world.statusJSON()["passcodeRequired"] is NSNull)
    }

    @Test func afterARestartTheFingerIsRefusedWithoutAPAMCallAndThePasscodeLiftsIt() throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        let calls = world.calls(Self.biometric)
        let refused = try afterARestart(world, ["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        CoreExpect.outcome(refused, "biometryLockout", policy: "biometrics")
        #expect(refused.json?["passcodeRequired"] as? String == "restart", "\(refused)")
        #expect(refused.json?["message"] as? String == "Your passcode is required after a restart.")
        #expect(world.calls(Self.biometric) == calls)
        let words = try afterARestart(world, ["-S", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        #expect(words.stderr.contains("Your passcode is required after a restart. (biometryLockout)"), "\(words)")
        let status = try afterARestart(world, ["status"])
        #expect(status.stdout.contains("biometric factor:   passcode required (restart): Your passcode is required after a restart."), "\(status)")
        // The finger is not asked for: device-owner's first prompt is the passcode.
        let deviceOwner = try afterARestart(world, ["-S", "--json", "auth"], input: "alice-passcode\n")
        CoreExpect.outcome(deviceOwner, "success", policy: "device-owner")
        #expect(world.calls(Self.biometric) == calls)
        let again = try afterARestart(world, ["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        CoreExpect.outcome(again, "success", policy: "biometrics")
        // Back in the first boot, that passcode was of another boot.
        let back = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        #expect(back.json?["passcodeRequired"] as? String == "restart", "\(back)")
    }

    /// 49 hours later (the issue's own test: the finger used to unlock then).
    @Test func fortyNineHoursWithoutAnUnlockRequireThePasscode() throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        let calls = world.calls(Self.biometric)
        let before = try shifted(world, hours: 47, ["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        CoreExpect.outcome(before, "success", policy: "biometrics")
        let refused = try shifted(world, hours: 47 + 49, ["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        CoreExpect.outcome(refused, "biometryLockout", policy: "biometrics")
        #expect(refused.json?["passcodeRequired"] as? String == "idle", "\(refused)")
        #expect(world.calls(Self.biometric) == calls + 1)
        let status = try shifted(world, hours: 47 + 49, ["--json", "status"])
        #expect(status.json?["passcodeRequired"] as? String == "idle", "\(status)")
        // The wall clock set back to now: the refusal was a time the store saw, the rule stays.
        let setBack = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        #expect(setBack.json?["passcodeRequired"] as? String == "idle", "\(setBack)")
        #expect(world.calls(Self.biometric) == calls + 1)
        // A shorter setting is the user's to choose.
        try world.setConfig("passcode-after-idle-hours", "24")
        let unlocked = try shifted(world, hours: 47 + 49, ["-S", "--json", "auth"], input: "alice-passcode\n")
        CoreExpect.outcome(unlocked, "success", policy: "device-owner")
        let later = try shifted(world, hours: 47 + 49 + 23, ["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        CoreExpect.outcome(later, "success", policy: "biometrics")
        let idle = try shifted(world, hours: 47 + 49 + 23 + 25, ["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        #expect(idle.json?["passcodeRequired"] as? String == "idle", "\(idle)")
    }

    @Test func lockdownNeedsNoAuthenticationAndLastsUntilThePasscode() throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        let lockdown = try world.run(["--json", "lockdown"], input: "")
        #expect(lockdown.status == 0, "\(lockdown)")
        #expect(lockdown.json?["passcodeRequired"] as? String == "lockdown")
        let calls = world.calls(Self.biometric)
        let refused = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        CoreExpect.outcome(refused, "biometryLockout", policy: "biometrics")
        #expect(refused.json?["passcodeRequired"] as? String == "lockdown")
        let check = try world.run(["--json", "can-evaluate", "--policy", "biometrics"])
        #expect(check.json?["passcodeRequired"] as? String == "lockdown", "\(check)")
        #expect(try world.statusJSON()["passcodeRequired"] as? String == "lockdown")
        #expect(try world.sqlite("SELECT new_value FROM audit WHERE setting = 'lockdown'") == "on")
        // A wrong passcode leaves it; the right one lifts it.
        let wrong = try world.run(["-S", "--json", "auth"], input: "nope\nalice-passcode\n")
        CoreExpect.outcome(wrong, "success", policy: "device-owner")
        #expect(world.calls(Self.biometric) == calls)
        let finger = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        CoreExpect.outcome(finger, "success", policy: "biometrics")
    }

    @Test func theDemoShowsTheLockdown() throws {
        let world = try TestEnvironment()
        let demo = try world.run(["demo"], timeout: 120)
        #expect(demo.status == 0, "\(demo)")
        #expect(demo.stdout.contains("""
            ▸ The finger is refused without asking PAM (Your passcode is required after lockdown.)
                outcome: biometryLockout (exit code 8)
            """), "\(demo.stdout)")
        #expect(demo.stdout.contains("touchgate: Your passcode is required after lockdown."), "\(demo.stdout)")
    }

    @Test func theSettingsAreCheckedAndAWeakerOneNeedsTheOwner() throws {
        let world = try TestEnvironment()
        let bad = try world.run(["config", "set", "passcode-after-idle-hours", "0"])
        #expect(bad.status == 65)
        #expect(bad.stderr == "touchgate: invalid value '0' for passcode-after-idle-hours: expected a whole number from 1 to 8760\n", "\(bad)")
        try world.enableAndEnroll()
        // Raising it weakens the lock: the owner's passcode (here refused: none given) is needed.
        let weaker = try world.run(["-S", "--json", "config", "set", "biometric-max-age-hours", "8"], input: "")
        #expect(weaker.status != 0, "\(weaker)")
        let stricter = try world.run(["-S", "config", "set", "biometric-max-age-hours", "2"], input: "")
        #expect(stricter.status == 0, "\(stricter)")
        let get = try world.run(["config", "get", "biometric-max-age-hours"])
        #expect(get.stdout == "2\n")
    }
}

/// The rules in the PAM module's ledger, under a real terminal login (pamtester with a tty, as
/// sudo and login run the module): a rule keeps the reader from being tried at all.
@Suite(.serialized) struct PasscodeRulesPAMTests {
    @Test func anAdministratorsLockdownKeepsTheReaderUntriedUntilThePassword() throws {
        let host = try PAMHost()
        // A reader that would accept at once: a try that reaches it unlocks without a password.
        try host.biometricStack("pam_exec.so quiet /bin/true")
        try host.passcodeSucceededInThisBoot()
        let lock = try host.run(["/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=\(host.path)/roothome", TestEnvironment.binary,
                                 "--system", "--json", "lockdown", "--user", PAMHost.user])
        #expect(lock.status == 0, "\(lock)")
        #expect(lock.json?["passcodeRequired"] as? String == "adminLock", "\(lock)")
        #expect(try host.ledger("SELECT admin_lock FROM users WHERE name = 'tgtest-alice'") == "1")
        let login = try host.terminalLogin(from: "")
        try login.waitFor("Password:")
        // The host's prompt alone, as pam_unix's (a reader stack without a reader must not add a line to every sudo).
        #expect(login.screen == "Password: ", "\(login.screen.debugDescription)")
        login.type(PAMHost.password + "\r")
        #expect(try login.wait() == 0, "\(login.screen.debugDescription)")
        #expect(host.calls("biometric").isEmpty, "\(host.calls("biometric"))")
        #expect(try host.ledger("SELECT admin_lock FROM users WHERE name = 'tgtest-alice'") == "0")
        // The password lifted it: the reader is tried again, and unlocks.
        let next = try host.terminalLogin(from: "")
        #expect(try next.wait() == 0, "\(next.screen.debugDescription)")
        #expect(host.calls("biometric").count == 1)
    }

    /// Root's `touchgate --user NAME lockdown` locks NAME's own store (as its user: the files stay theirs).
    @Test func rootLocksAUsersOwnStore() throws {
        let host = try PAMHost()
        let made = try host.run(PAMHost.asUser(["/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=\(host.home("tgtest-alice"))",
                                                TestEnvironment.binary, "status"]))
        #expect(made.status == 0, "\(made)")
        let store = host.home("tgtest-alice") + "/.local/state/touchgate/touchgate.sqlite"
        let lock = try host.run(["/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=\(host.path)/roothome", TestEnvironment.binary,
                                 "--user", "tgtest-alice", "--json", "lockdown"])
        #expect(lock.status == 0, "\(lock)")
        #expect(lock.json?["passcodeRequired"] as? String == "adminLock", "\(lock)")
        #expect(lock.json?["store"] as? String == store)
        let flags = try TestEnvironment.execute("/usr/bin/sqlite3", [store, "SELECT admin_lock, lockdown FROM users WHERE name = 'tgtest-alice'"],
                                                environment: ["PATH": "/usr/bin"])
        #expect(flags.stdout == "1|0\n", "\(flags)")
        var info = stat()
        #expect(stat(store, &info) == 0 && info.st_uid == uid_t(PAMHost.uid))
        #expect(!FileManager.default.fileExists(atPath: host.path + "/roothome/.local"))
    }

    @Test func withoutAPasswordOfThisBootTheReaderIsNotTried() throws {
        let host = try PAMHost()
        try host.biometricStack("pam_exec.so quiet /bin/true")
        let login = try host.terminalLogin(from: "")
        try login.waitFor("Password:")
        login.type(PAMHost.password + "\r")
        #expect(try login.wait() == 0, "\(login.screen.debugDescription)")
        #expect(host.calls("biometric").isEmpty)
        #expect(try host.ledger("SELECT last_passcode_boot FROM users WHERE name = 'tgtest-alice'")
                == (try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
