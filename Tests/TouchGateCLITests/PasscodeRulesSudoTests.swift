import Foundation
import Testing

/// The passcode rules in `pam_touchgate.so` under the real `sudo`: the helper's clock shifted by
/// libfaketime (`pam/test/faketime-helper.bash` installed as the helper), another boot id bound
/// over /proc/sys/kernel/random/boot_id, a reader stack that accepts at once (so a finger that
/// is tried unlocks) and counts each call. A refused finger never reaches that stack, nothing
/// is counted that did not reach PAM, and sudo shows the rule's reason above its prompt.
@Suite(.serialized) struct PasscodeRulesSudoTests {
    static let hour = 3600.0

    /// `sudo -S -k true` as tgtest-alice, its answers from `input`, the helper `hours` ahead
    /// (sudo writes the module's PAM_TEXT_INFO lines to standard output, its prompt to standard error).
    private func sudo(_ host: PAMHost, hours: Int = 0, otherBoot: Bool = false, input: String = "") throws -> RunResult {
        try host.script(try host.shiftedScript(hours: hours, otherBoot: otherBoot,
                                               PAMHost.asUser(["sudo", "-S", "-k", "-p", "sudo-prompt:", "true"])), input: input)
    }

    private func host() throws -> PAMHost {
        let host = try PAMHost()
        try host.host("sudo")
        try host.biometricStack("pam_exec.so quiet /bin/true")
        try host.shiftsTheHelpersClock()
        return host
    }

    private func counters(_ host: PAMHost) throws -> String {
        try host.ledger("SELECT biometric_failures || ' ' || passcode_failures FROM users WHERE name = '\(PAMHost.user)'")
    }

    @Test func theRestartTheIdleSpellAndThePasscodesAgeEachKeepTheFingerUntried() throws {
        let host = try host()
        // A fresh boot: the password first, and its reason is not said to a user who never used a finger.
        let password = try sudo(host, input: PAMHost.password + "\n")
        #expect(password.status == 0, "\(password)")
        #expect(!(password.stdout + password.stderr).contains("touchgate:"), "\(password)")
        #expect(host.calls("biometric").isEmpty && host.calls("passcode").count == 1)
        let finger = try sudo(host)
        #expect(finger.status == 0, "\(finger)")
        #expect(host.calls("biometric").count == 1)

        // Another boot id: the finger is not tried, the password is asked, with the reason above it.
        let restart = try sudo(host, otherBoot: true)
        #expect(restart.status != 0, "\(restart)")
        #expect(restart.stderr.contains("sudo-prompt:"), "the password is asked: \(restart)")
        #expect(restart.stdout.contains("touchgate: Your passcode is required after a restart.\n"), "\(restart)")
        #expect(host.calls("biometric").count == 1)

        // 47 hours without an unlock: the finger still works (and the shift reached the helper).
        let idleNot = try sudo(host, hours: 47)
        #expect(idleNot.status == 0, "\(idleNot)")
        #expect(host.calls("biometric").count == 2)
        let gap = Double(try host.ledger("SELECT last_biometric_success - last_passcode_success FROM users WHERE name = '\(PAMHost.user)'"))
        #expect(gap.map { abs($0 - 47 * Self.hour) < 600 } == true, "\(String(describing: gap))")
        // The finger every 47 hours keeps the idle rule away; 160 hours after the password, its age holds.
        for hours in [94, 141] {
            let again = try sudo(host, hours: hours)
            #expect(again.status == 0, "+\(hours)h: \(again)")
        }
        #expect(host.calls("biometric").count == 4)
        let age = try sudo(host, hours: 160)
        #expect(age.status != 0, "\(age)")
        #expect(age.stderr.contains("sudo-prompt:"), "the password is asked: \(age)")
        #expect(age.stdout.contains("touchgate: Your passcode is required because it has not been used for a while.\n"), "\(age)")
        #expect(host.calls("biometric").count == 4)
        // 49 hours after the last unlock (at +141 h): the idle rule.
        let idle = try sudo(host, hours: 190)
        #expect(idle.status != 0, "\(idle)")
        #expect(idle.stderr.contains("sudo-prompt:"), "the password is asked: \(idle)")
        #expect(idle.stdout.contains("touchgate: Your passcode is required because the device has not been unlocked for a while.\n"), "\(idle)")
        #expect(host.calls("biometric").count == 4, "the reader was never called when refused")
        // Exact counts: no refusal and no unanswered prompt counted a guess; one password reached PAM.
        #expect(try counters(host) == "0 0")
        #expect(host.calls("passcode").count == 1)
        // The password at +190 h lifts every rule: the finger works again.
        let lifted = try sudo(host, hours: 190, input: PAMHost.password + "\n")
        #expect(lifted.status == 0, "\(lifted)")
        let fingerAgain = try sudo(host, hours: 191)
        #expect(fingerAgain.status == 0, "\(fingerAgain)")
        #expect(host.calls("biometric").count == 5)
        #expect(try counters(host) == "0 0")
    }

    /// A lockdown: sudo says so above its prompt, at a real terminal too, and a wrong password is
    /// counted once (it reached PAM) while the reader is never called.
    @Test func aLockdownIsSaidAboveSudosPromptAtATerminal() throws {
        let host = try host()
        #expect(try sudo(host, input: PAMHost.password + "\n").status == 0)
        #expect(try sudo(host).status == 0)
        let lock = try host.run([TestEnvironment.binary, "--system", "lockdown", "--user", PAMHost.user])
        #expect(lock.status == 0, "\(lock)")
        let wrong = try sudo(host, input: "not-it\n")
        #expect(wrong.status != 0, "\(wrong)")
        #expect(wrong.stdout.contains("touchgate: Your passcode is required: an administrator locked the biometric factor.\n"),
                "\(wrong)")
        #expect(try counters(host) == "0 1")
        #expect(host.calls("passcode").count == 2 && host.calls("biometric").count == 1)
        let terminal = try host.terminal(["/bin/bash", "-c", try host.shiftedScript(hours: 0, otherBoot: false,
                                                                                   PAMHost.asUser(["sudo", "-k", "true"]))])
        try terminal.waitFor("password for")
        #expect(terminal.screen.contains("touchgate: Your passcode is required: an administrator locked the biometric factor.\r\n[sudo] password for"),
                "\(terminal.screen.debugDescription)")
        terminal.type(PAMHost.password + "\r")
        #expect(try terminal.wait() == 0, "\(terminal.screen.debugDescription)")
        #expect(host.calls("biometric").count == 1)
        #expect(try host.ledger("SELECT admin_lock FROM users WHERE name = '\(PAMHost.user)'") == "0")
    }
}
