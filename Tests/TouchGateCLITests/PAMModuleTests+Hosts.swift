import Foundation
import Testing

/// The module in its hosts' own ways: where sudo reads the password (`-S`, `-A`, the terminal),
/// what the host shows, Ctrl-C, the `silent` option, remote hosts' budget, user names that do
/// not exist and `PAM_TTY` in the ledger; real sudo, su and pamtester in ``PAMHost``'s namespace.
extension PAMModuleTests {
    /// sudo's own prompt for tgtest-alice, as sudoers words it.
    static let sudoPrompt = "[sudo] password for \(PAMHost.user): "

    /// A biometric stack that exists but answers at once that there is no reader
    /// (pam_matrix without its database: PAM_AUTHINFO_UNAVAIL), as pam_fprintd does without one.
    private static let noReader = "/usr/lib/x86_64-linux-gnu/pam_wrapper/pam_matrix.so passdb=/nonexistent/biometric.db"

    /// What the screen shows after `marker` (the prompt line), with the pty's carriage returns dropped.
    private func lines(_ screen: String, after marker: String) -> [String] {
        guard let range = screen.range(of: marker) else { return [] }
        return screen[range.upperBound...].replacingOccurrences(of: "\r", with: "")
            .split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// Waits until the program at `terminal` (the harness's child, sudo) is blocked in read(2).
    private func waitUntilReading(_ terminal: PseudoTerminal, timeout: TimeInterval = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let child = PseudoTerminal.children(of: terminal.pid).first,
               let call = try? String(contentsOfFile: "/proc/\(child)/syscall", encoding: .utf8), call.hasPrefix("0 ") {
                return
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw TestFailure("the program never read: \(terminal.screen.debugDescription)")
    }

    @Test func sudoDashSAtATerminalReadsItsPipe() throws {
        let host = try PAMHost()
        try host.host("sudo")
        // Standard input is the pipe; the controlling terminal (PAM_TTY) is the pty, where nobody types.
        let sudo = try host.terminal(["/bin/bash", "-c",
            "printf '%s\\n' '\(PAMHost.password)' | " + PAMHost.asUser(["sudo", "-S", "-k", "true"]).joined(separator: " ")])
        #expect(try sudo.wait(timeout: 20) == 0, "\(sudo.screen.debugDescription)")
        #expect(host.calls("passcode").count == 1)
        #expect(try host.ledger("SELECT outcome FROM audit WHERE factor = 'passcode'") == "success")
    }

    @Test func sudoDashAAtATerminalRunsItsAskpassProgram() throws {
        let host = try PAMHost()
        try host.host("sudo")
        let askpass = host.path + "/askpass"
        // sudo runs the program as tgtest-alice: it leaves its mark in her home.
        let mark = host.home(PAMHost.user) + "/askpass-ran"
        try Data("#!/bin/sh\necho \"$1\" > '\(mark)'\necho '\(PAMHost.password)'\n".utf8).write(to: URL(fileURLWithPath: askpass))
        chmod(askpass, 0o755)
        for arguments in [["-A", "-k"], ["-kA"], ["--askpass", "-k"], ["-u", "root", "-A"]] {
            try? FileManager.default.removeItem(atPath: mark)
            let sudo = try host.terminal(PAMHost.asUser(["/usr/bin/env", "SUDO_ASKPASS=\(askpass)", "sudo", "-k"] + arguments + ["true"]))
            #expect(try sudo.wait(timeout: 20) == 0, "\(arguments): \(sudo.screen.debugDescription)")
            let asked = try? String(contentsOfFile: mark, encoding: .utf8)
            #expect(asked == Self.sudoPrompt + "\n", "\(arguments): the askpass program was given sudo's prompt: \(asked ?? "never ran")")
            #expect(!sudo.screen.contains("assword"), "\(arguments): nothing asked at the terminal: \(sudo.screen.debugDescription)")
        }
        #expect(host.calls("passcode").count == 4)
        // Without -A, the same sudo asks at the terminal (its prompt device), not the program.
        try? FileManager.default.removeItem(atPath: mark)
        let plain = try host.terminal(PAMHost.asUser(["/usr/bin/env", "SUDO_ASKPASS=\(askpass)", "sudo", "-k", "true"]))
        try plain.waitFor(Self.sudoPrompt)
        plain.type(PAMHost.password + "\r")
        #expect(try plain.wait() == 0, "\(plain.screen.debugDescription)")
        #expect(!FileManager.default.fileExists(atPath: mark))
    }

    @Test(arguments: [false, true])
    func withoutABiometricFactorSudoShowsItsOwnPromptAndNothingElse(readerStackWithoutAReader: Bool) throws {
        let host = try PAMHost()
        try host.host("sudo")
        if readerStackWithoutAReader { try host.biometricStack(Self.noReader) }
        let sudo = try host.terminal(PAMHost.asUser(["sudo", "-k", "true"]))
        try sudo.waitFor(Self.sudoPrompt)
        sudo.type("not-it\r")
        try sudo.waitFor("Sorry, try again.\r\n" + Self.sudoPrompt)
        sudo.type(PAMHost.password + "\r")
        #expect(try sudo.wait() == 0, "\(sudo.screen.debugDescription)")
        // Exactly what sudo with pam_unix shows: its prompt, its "Sorry", its prompt.
        let shown = sudo.screen.replacingOccurrences(of: "\r", with: "")
        #expect(shown == Self.sudoPrompt + "\nSorry, try again.\n" + Self.sudoPrompt + "\n", "\(sudo.screen.debugDescription)")
        #expect(sudo.modesAsFound)
        #expect(host.calls("passcode").count == 2)
    }

    @Test func ctrlCAtSudosPromptEndsWithOneLine() throws {
        let host = try PAMHost()
        try host.host("sudo")
        let sudo = try host.terminal(PAMHost.asUser(["sudo", "-k", "true"]))
        try sudo.waitFor(Self.sudoPrompt)
        // sudo catches SIGINT from before its prompt, but only a read in progress is cut short:
        // Ctrl-C comes once sudo reads, as a person's would.
        try waitUntilReading(sudo)
        sudo.type("\u{03}")
        #expect(try sudo.wait() != 0)
        let after = lines(sudo.screen, after: Self.sudoPrompt)
        #expect(after.count == 1, "one line after the prompt: \(sudo.screen.debugDescription)")
        #expect(sudo.modesAsFound)
        // No answer was submitted: nothing is counted (no try was admitted, so there may be no row).
        #expect(try host.ledger("SELECT count(*) FROM users WHERE name = 'tgtest-alice' AND passcode_failures > 0") == "0")
        #expect(try host.ledger("SELECT outcome FROM audit") == "userCancel")
    }

    @Test func theSilentOptionShowsNoCountsAndNoDelays() throws {
        for silent in [false, true] {
            let host = try PAMHost()
            try host.host("tgtest", options: silent ? "silent" : "")
            // passcode-delays' default: 5 failures, then a wait of 60 s; the sixth try is throttled.
            var shown = ""
            for attempt in 1...6 {
                let wrong = try host.run(["pamtester", "tgtest", PAMHost.user, "authenticate"], input: "wrong-\(attempt)\n")
                #expect(wrong.status != 0)
                shown += wrong.stdout + wrong.stderr
            }
            #expect(host.calls("passcode").count == 5, "\(silent): the sixth was throttled")
            #expect(shown.contains("tries left") == !silent, "\(silent): \(shown)")
            #expect(shown.contains("60 s") == !silent, "\(silent): \(shown)")
            #expect(!shown.contains("touchgate: authenticate"), "\(shown)")
        }
    }

    @Test func remoteHostsHaveABudgetOfTheirOwnExactUnderParallelTries() throws {
        let host = try PAMHost()
        try host.host("su")
        // 50 wrong passwords at once from a remote host: exactly 5 reach PAM (passcode-delays' default).
        let flood = try host.script("""
            for i in $(seq 50); do printf 'wrong-%s\\n' "$i" | pamtester -I rhost=198.51.100.4 tgtest tgtest-alice authenticate >>'\(host.path)/remote.out' 2>&1 & done
            wait
            """, timeout: 120)
        #expect(flood.status == 0, "\(flood)")
        #expect(host.calls("passcode").count == 5, "\(host.calls("passcode").count) reached PAM")
        #expect(try host.ledger("SELECT failures FROM remote_passcode_tries WHERE name = 'tgtest-alice'") == "5")
        #expect(try host.ledger("SELECT count(*) FROM audit WHERE outcome = 'throttled'") == "45")
        #expect(try host.ledger("SELECT count(*) FROM audit WHERE outcome = 'pending'") == "0")
        // A remote host is told no counts and no delays.
        let told = (try? String(contentsOfFile: host.path + "/remote.out", encoding: .utf8)) ?? ""
        #expect(!told.contains("tries left") && !told.contains(" s."), "\(told)")
        // The local keyboard's budget is untouched: su at the terminal is not throttled.
        #expect(try host.ledger("SELECT count(*) FROM users WHERE passcode_failures > 0") == "0")
        let su = try host.terminal(PAMHost.asUser(["su", "-c", "true", PAMHost.user]))
        try su.waitFor("Password:")
        su.type(PAMHost.password + "\r")
        #expect(try su.wait() == 0, "\(su.screen.debugDescription)")
        #expect(host.calls("passcode").count == 6)
        // And the remote hosts' stays where it was: the local success cleared only the local count.
        let remote = try host.run(["pamtester", "-I", "rhost=198.51.100.4", "tgtest", PAMHost.user, "authenticate"],
                                  input: PAMHost.password + "\n")
        #expect(remote.status != 0, "still throttled: \(remote)")
        #expect(host.calls("passcode").count == 6)
        // Nor do the local keyboard's failures throttle remote hosts: tgtest-bob's five at the keyboard
        // (no PAM_RHOST) stop his sixth there, and his password from a remote host still unlocks.
        for attempt in 1...6 {
            _ = try host.run(["pamtester", "tgtest", PAMHost.target, "authenticate"], input: "wrong-\(attempt)\n")
        }
        #expect(try host.ledger("SELECT passcode_failures FROM users WHERE name = 'tgtest-bob'") == "5")
        #expect(host.calls("passcode").count == 11)
        let bobRemote = try host.run(["pamtester", "-I", "rhost=198.51.100.4", "tgtest", PAMHost.target, "authenticate"],
                                     input: PAMHost.targetPassword + "\n")
        #expect(bobRemote.status == 0, "\(bobRemote)")
        #expect(try host.ledger("SELECT passcode_failures FROM users WHERE name = 'tgtest-bob'") == "5")
    }

    @Test func aUserNameThatDoesNotExistIsAskedForAPasswordAndLeavesNoRow() throws {
        let host = try PAMHost()
        // What sshd's client sees for a user that exists and types a wrong password...
        let known = try host.run(["pamtester", "-I", "rhost=203.0.113.50", "tgtest", PAMHost.user, "authenticate"], input: "guess\n")
        #expect(known.status != 0 && (known.stdout + known.stderr).contains("Password: "), "\(known)")
        for name in ["tg-no-such-user", "tg-invalid-4242", "tg-nobody-here"] {
            let result = try host.run(["pamtester", "-I", "rhost=203.0.113.50", "tgtest", name, "authenticate"], input: "guess\n")
            #expect(result.status != 0, "\(result)")
            // ...is what it sees for one that does not: the same prompt, the same failure.
            #expect(result.stdout == known.stdout && result.stderr == known.stderr, "\(result) vs \(known)")
        }
        #expect(host.calls("passcode").count == 4)
        #expect(try host.ledger("SELECT group_concat(name) FROM users") == "")
        #expect(try host.ledger("SELECT DISTINCT user FROM audit") == PAMHost.user)
        #expect(try host.ledger("SELECT group_concat(name) FROM remote_passcode_tries") == PAMHost.user)
    }
}
