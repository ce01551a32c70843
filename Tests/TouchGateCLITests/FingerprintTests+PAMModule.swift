import Foundation
import Testing

/// `pam_touchgate.so` with the real fprintd (``FingerprintReader``, its bus bind-mounted at the
/// system bus's path inside ``PAMHost``'s namespace): real `sudo` at a terminal, driven the way
/// `touchgate auth` drives one, and `pamtester` through the host's conversation. In
/// ``FingerprintTests``' serialized suite, as the reader is shared.
extension FingerprintTests {
    /// A host whose biometric stack is the real pam_fprintd, one scan per try and per evaluation
    /// (the virtual device can miss a scan sent right after a verify ended).
    private func readerHost(_ reader: FingerprintReader) throws -> PAMHost {
        try reader.ensureRunning()
        let host = try PAMHost()
        try host.biometricStack("pam_fprintd.so max-tries=1 timeout=10")
        try host.host("sudo")
        let config = try TestEnvironment.execute(TestEnvironment.binary, [
            "--store", host.ledgerPath, "--user", PAMHost.user, "config", "set", "biometric-tries-per-evaluation", "1"],
            environment: ["PATH": "/usr/bin:/bin", "HOME": host.path])
        guard config.status == 0 else { throw TestFailure("config set: \(config)") }
        try host.passcodeSucceededInThisBoot()
        return host
    }

    private static let waitText = "Touch the fingerprint reader, or type your passcode"

    /// Real sudo as tgtest-alice at a terminal of its own, waiting for the reader.
    private func sudoWaiting(_ host: PAMHost, _ reader: FingerprintReader) throws -> PseudoTerminal {
        let sudo = try host.terminal(PAMHost.asUser(["sudo", "-k", "true"]), bus: reader.busSocket)
        try sudo.waitFor(Self.waitText)
        try sudo.waitFor(FingerprintReader.waitingMessage)
        return sudo
    }

    @Test func aScanUnlocksRealSudoAtATerminal() throws {
        let reader = try FingerprintReader.start()
        let host = try readerHost(reader)
        let sudo = try sudoWaiting(host, reader)
        try reader.send("SCAN good")
        #expect(try sudo.wait() == 0, "\(sudo.screen.debugDescription)")
        #expect(host.calls("passcode").isEmpty)
        #expect(host.calls("biometric").count == 1)
        #expect(try host.ledger("SELECT factor || ' ' || outcome FROM audit WHERE session LIKE 'pam:sudo ruser=tgtest-alice tty=/dev/pts/%'") == "biometric success")
        #expect(sudo.modesAsFound)
    }

    @Test func thePasswordTypedWhileTheReaderWaitsUnlocksRealSudo() throws {
        let reader = try FingerprintReader.start()
        let host = try readerHost(reader)
        let sudo = try sudoWaiting(host, reader)
        sudo.type(PAMHost.password + "\r")
        #expect(try sudo.wait() == 0, "\(sudo.screen.debugDescription)")
        #expect(!sudo.screen.contains(PAMHost.password), "never echoed")
        #expect(host.calls("passcode").count == 1)
        #expect(try host.ledger("SELECT passcode_failures || ' ' || biometric_failures FROM users WHERE name = 'tgtest-alice'") == "0 0")
        // The reader is free again at once: the next sudo unlocks with a scan.
        let next = try sudoWaiting(host, reader)
        try reader.send("SCAN good")
        #expect(try next.wait() == 0, "\(next.screen.debugDescription)")
    }

    @Test func enterFallsBackToThePasswordPromptAtTheTerminal() throws {
        let reader = try FingerprintReader.start()
        let host = try readerHost(reader)
        let sudo = try sudoWaiting(host, reader)
        sudo.type("\r")
        try sudo.waitFor("Password:")
        sudo.type(PAMHost.password + "\r")
        #expect(try sudo.wait() == 0, "\(sudo.screen.debugDescription)")
        #expect(host.calls("passcode").count == 1)
        // The wait that Enter ended checked no finger: not counted.
        #expect(try host.ledger("SELECT biometric_failures FROM users WHERE name = 'tgtest-alice'") == "0")
    }

    @Test func ctrlCCancelsRealSudoAndLeavesTheTerminalAsItWas() throws {
        let reader = try FingerprintReader.start()
        let host = try readerHost(reader)
        let sudo = try sudoWaiting(host, reader)
        #expect(sudo.modes.c_lflag & tcflag_t(ECHO) == 0, "echo is off while it waits")
        sudo.type("\u{03}")
        let status = try sudo.wait()
        #expect(status != 0, "\(sudo.screen.debugDescription)")
        #expect(sudo.modesAsFound, "the terminal's modes are restored")
        // After the wait's line (the rest of which comes first) only the host's own: sudo words a
        // cancel it did not see itself as a conversation error and a password required.
        let after = sudo.screen.components(separatedBy: Self.waitText).last ?? ""
        let lines = after.replacingOccurrences(of: "\r", with: "").split(separator: "\n")
        #expect(lines.count == 3 && lines.dropFirst().allSatisfy { $0.hasPrefix("sudo: ") }, "\(sudo.screen.debugDescription)")
        #expect(host.calls("passcode").isEmpty)
        #expect(try host.ledger("SELECT biometric_failures FROM users WHERE name = 'tgtest-alice'") == "0")
    }

    @Test(arguments: [["-A"], ["-S"], ["-u", "root", "--askpass"]])
    func sudoAskedForItsPipeOrItsAskpassProgramNeverHasTheTerminalTaken(_ options: [String]) throws {
        let reader = try FingerprintReader.start()
        let host = try readerHost(reader)
        // Standard input is the terminal, as with a plain sudo: only sudo's options say where it reads.
        let sudo = try host.terminal(PAMHost.asUser(["/usr/bin/env", "SUDO_ASKPASS=/bin/false", "sudo", "-k"] + options + ["true"]),
                                     bus: reader.busSocket)
        // Serially through sudo's conversation: the reader's line, which sudo prints, and no wait on the terminal.
        try sudo.waitFor(FingerprintReader.waitingMessage)
        #expect(!sudo.screen.contains(Self.waitText), "\(options): \(sudo.screen.debugDescription)")
        try reader.send("SCAN good")
        #expect(try sudo.wait() == 0, "\(options): \(sudo.screen.debugDescription)")
        #expect(host.calls("passcode").isEmpty)
        #expect(sudo.modesAsFound)
    }

    @Test func wrongScansLockTheFactorOutExactlyAtTheLimit() throws {
        let reader = try FingerprintReader.start()
        let host = try readerHost(reader)
        try host.host("tgbio", options: "factor=biometric")
        // max-biometric-failures' default is 5: five wrong scans, each through pamtester (no terminal).
        // A verify the virtual device missed the scan of times out uncounted: that one is tried again.
        var counted = 0
        for attempt in 1...8 where counted < 5 {
            // pamtester's standard output (the conversation's lines, unbuffered) on its standard error, to wait on.
            let pamtester = try RunningProcess(
                ["/bin/bash", PAMHost.harness, host.path, "/bin/sh", "-c", "stdbuf -o0 pamtester tgbio tgtest-alice authenticate 1>&2"],
                environment: host.environment(bus: reader.busSocket))
            pamtester.closeInput()
            try pamtester.waitForError(containing: FingerprintReader.waitingMessage, timeout: 20)
            // Through the host's conversation, serially: the helper's line, then the reader's.
            #expect(pamtester.errorsSoFar.contains("touchgate: authenticate for tgbio"))
            try? reader.send("SCAN bad")
            let result = try pamtester.wait(timeout: 30)
            #expect(result.status != 0, "try \(attempt): \(result)")
            counted = Int(try host.ledger("SELECT biometric_failures FROM users WHERE name = 'tgtest-alice'")) ?? 0
            // The virtual device reopens its socket for the next verify (FingerprintReader.send).
            Thread.sleep(forTimeInterval: 0.3)
        }
        #expect(counted == 5)
        let reached = host.calls("biometric").count
        let locked = try host.run(["pamtester", "tgbio", "tgtest-alice", "authenticate"], bus: reader.busSocket, timeout: 20)
        #expect(locked.status != 0, "\(locked)")
        // PAM_MAXTRIES, as pamtester spells it, and the helper's line through the conversation.
        #expect(locked.stderr.contains("Have exhausted maximum number of retries"), "\(locked)")
        #expect((locked.stdout + locked.stderr).contains("locked out"), "\(locked)")
        #expect(host.calls("biometric").count == reached, "the locked-out try never reached the reader")
        #expect(try host.ledger("SELECT biometric_failures FROM users WHERE name = 'tgtest-alice'") == "5")
        #expect(try host.ledger("SELECT count(*) FROM audit WHERE outcome = 'authenticationFailed'") == "5")
        #expect(try host.ledger("SELECT count(*) FROM audit WHERE outcome = 'biometryLockout'") == "1")
    }

    @Test func aUserWithoutPrintsGoesStraightToThePasswordUncounted() throws {
        let reader = try FingerprintReader.start()
        let host = try readerHost(reader)
        try host.passcodeSucceededInThisBoot(PAMHost.target)
        // tgtest-bob has no prints in fprintd: pam_fprintd answers PAM_AUTHINFO_UNAVAIL at once.
        let started = Date()
        let result = try host.run(["pamtester", "tgtest", PAMHost.target, "authenticate"], input: PAMHost.targetPassword + "\n",
                                  bus: reader.busSocket, timeout: 30)
        #expect(result.status == 0, "\(result)")
        #expect(Date().timeIntervalSince(started) < 8, "no wait for the reader")
        #expect(host.calls("biometric").count == 1)
        #expect(host.calls("passcode").count == 1)
        #expect(try host.ledger("SELECT biometric_failures || ' ' || passcode_failures FROM users WHERE name = 'tgtest-bob'") == "0 0")
        #expect(try host.ledger("SELECT factor || ' ' || outcome FROM audit WHERE user = 'tgtest-bob' ORDER BY id")
            == "biometric biometryNotAvailable\npasscode success")
    }

    @Test func theHostKilledMidScanLeavesTheReaderFreeAndTheTryCounted() throws {
        let reader = try FingerprintReader.start()
        let host = try readerHost(reader)
        let sudo = try sudoWaiting(host, reader)
        // The harness's child is sudo (setpriv execs it): kill sudo alone, as a crash would end it.
        guard let sudoPID = PseudoTerminal.children(of: sudo.pid).first else { throw TestFailure("no sudo under \(sudo.pid)") }
        kill(sudoPID, SIGKILL)
        _ = try sudo.wait()
        let audit = try host.ledger("SELECT * FROM audit")
        #expect(try host.ledger("SELECT biometric_failures FROM users WHERE name = 'tgtest-alice'") == "1",
                "\(audit) \(sudo.screen.debugDescription)")
        #expect(try host.ledger("SELECT count(*) FROM audit WHERE outcome = 'pending'") == "1")
        // The helper and its worker died with the host, so fprintd gave the reader back.
        let next = try sudoWaiting(host, reader)
        try reader.send("SCAN good")
        #expect(try next.wait() == 0, "\(next.screen.debugDescription)")
    }
}
