import Foundation
import Testing

/// `pam_touchgate.so` and `touchgate-pam-helper` in the real hosts: `pamtester` and `sudo`, as
/// root in a private mount namespace (``PAMHost``), counting in the system ledger.
@Suite(.serialized)
struct PAMModuleTests {
    @Test func theModuleExportsOnlyPAMEntryPointsAndNeedsOnlyLibcAndLibpam() throws {
        let exported = try Toolchain.symbols(BuiltPAMModule.path, ["-D", "--defined-only"])
            .split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
            .filter { !["_edata", "_end", "__bss_start"].contains($0) }
        #expect(Set(exported) == ["pam_sm_authenticate", "pam_sm_setcred"], "\(exported)")
        #expect(Set(try Toolchain.neededLibraries(BuiltPAMModule.path)) == ["libpam.so.0", "libc.so.6"])
        // No Swift runtime, no threads: nothing of libswiftCore or pthread_create is referenced.
        let undefined = try Toolchain.symbols(BuiltPAMModule.path, ["-D", "--undefined-only"])
        #expect(!undefined.contains("swift"), "\(undefined)")
        #expect(!undefined.contains("pthread_create"))
        #expect(!undefined.contains("sigaction") && !undefined.contains(" signal"), "\(undefined)")
    }

    @Test func pamtesterUnlocksWithThePasswordAndCountsInTheLedger() throws {
        let host = try PAMHost()
        let right = try host.run(["pamtester", "tgtest", PAMHost.user, "authenticate"], input: PAMHost.password + "\n")
        #expect(right.status == 0, "\(right)")
        #expect((right.stdout + right.stderr).contains("successfully authenticated"))
        let wrong = try host.run(["pamtester", "tgtest", PAMHost.user, "authenticate"], input: "not-it\n")
        #expect(wrong.status != 0, "\(wrong)")
        #expect(host.calls("passcode").count == 2)
        #expect(try host.ledger("SELECT passcode_failures FROM users WHERE name = 'tgtest-alice'") == "1")
        #expect(try host.ledger("SELECT outcome FROM audit WHERE factor = 'passcode' ORDER BY id")
            == "success\nauthenticationFailed")
        #expect(try host.ledger("SELECT DISTINCT session FROM audit WHERE factor = 'passcode'") == "pam:tgtest")
        // The ledger is root's, private, in a private directory.
        var info = stat()
        #expect(stat(host.ledgerPath, &info) == 0 && info.st_uid == 0 && info.st_mode & 0o077 == 0)
    }

    @Test func realSudoUnlocksThroughItsOwnConversationAndCountsEachTry() throws {
        let host = try PAMHost()
        try host.host("sudo")
        let sudo = PAMHost.asUser(["sudo", "-S", "-k", "-p", "sudo-prompt:", "true"])
        let right = try host.run(sudo, input: PAMHost.password + "\n")
        #expect(right.status == 0, "\(right)")
        #expect(right.stderr.contains("sudo-prompt:"), "sudo's own prompt asks: \(right)")
        let wrong = try host.run(sudo, input: "one\ntwo\nthree\n")
        #expect(wrong.status == 1, "\(wrong)")
        #expect(wrong.stderr.contains("3 incorrect password attempts"), "\(wrong)")
        // One call per answer: the right one, then sudo's three tries.
        #expect(host.calls("passcode").count == 4, "\(host.calls("passcode"))")
        #expect(host.calls("passcode").allSatisfy { $0.hasPrefix("touchgate tgtest-alice") })
        #expect(try host.ledger("SELECT passcode_failures FROM users WHERE name = 'tgtest-alice'") == "3")
        #expect(try host.ledger("SELECT count(*) FROM audit WHERE session = 'pam:sudo ruser=tgtest-alice' AND outcome = 'success'") == "1")
    }

    @Test func realSuAtATerminalAsAUserAsksOnTheTerminalAndCountsForTheTarget() throws {
        let host = try PAMHost()
        try host.host("su")
        let su = try host.terminal(PAMHost.asUser(["su", "-c", "id -un", PAMHost.target]))
        try su.waitFor("Password:")
        su.type(PAMHost.targetPassword + "\r")
        #expect(try su.wait() == 0, "\(su.screen.debugDescription)")
        #expect(su.screen.contains("\(PAMHost.target)\r\n"), "\(su.screen.debugDescription)")
        #expect(!su.screen.contains(PAMHost.targetPassword))
        #expect(su.modesAsFound)
        // su authenticates the target: tgtest-bob's try, asked by tgtest-alice, on her terminal.
        let calls = host.calls("passcode")
        #expect(calls.count == 1 && calls[0].hasPrefix("touchgate tgtest-bob ") && calls[0].contains(" /dev/pts/"), "\(calls)")
        // PAM_TTY, su's terminal, is in the row.
        let session = try host.ledger("SELECT session FROM audit WHERE user = 'tgtest-bob' AND outcome = 'success'")
        #expect(session.hasPrefix("pam:su ruser=tgtest-alice tty=/dev/pts/") && calls[0].contains(String(session.dropFirst("pam:su ruser=tgtest-alice tty=".count))),
                "\(session) \(calls)")
        // A wrong password: su fails, the failure is tgtest-bob's in the ledger.
        let wrong = try host.terminal(PAMHost.asUser(["su", "-c", "true", PAMHost.target]))
        try wrong.waitFor("Password:")
        wrong.type("not-it\r")
        #expect(try wrong.wait() != 0)
        #expect(wrong.modesAsFound)
        #expect(try host.ledger("SELECT passcode_failures FROM users WHERE name = 'tgtest-bob'") == "1")
    }

    @Test func aHostThatIsNotRootCountsInTheUsersOwnStore() throws {
        let host = try PAMHost()
        // pamtester run as tgtest-alice: the module, and so the helper, run as tgtest-alice (a screen locker's case).
        let result = try host.run(PAMHost.asUser(["/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "pamtester", "tgtest", "tgtest-alice", "authenticate"]),
                                  input: PAMHost.password + "\n")
        #expect(result.status == 0, "\(result)")
        let store = host.home("tgtest-alice") + "/.local/state/touchgate/touchgate.sqlite"
        let audit = try TestEnvironment.execute("/usr/bin/sqlite3", [store, "SELECT factor || ' ' || outcome || ' ' || session FROM audit"],
                                                environment: ["PATH": "/usr/bin"])
        #expect(audit.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "passcode success pam:tgtest", "\(audit)")
        var info = stat()
        #expect(stat(store, &info) == 0 && info.st_uid == uid_t(PAMHost.uid))
        #expect(!FileManager.default.fileExists(atPath: host.ledgerPath), "the ledger is only a root host's")
    }

    @Test func fiftyParallelWrongPasswordsLetExactlyTheAllowedNumberReachPAM() throws {
        let host = try PAMHost()
        // passcode-delays' default lets 5 failures through, then waits 60 s.
        let result = try host.script("""
            for i in $(seq 50); do printf 'wrong-%s\\n' "$i" | pamtester tgtest tgtest-alice authenticate >/dev/null 2>&1 & done
            wait
            """, timeout: 120)
        #expect(result.status == 0, "\(result)")
        #expect(host.calls("passcode").count == 5, "\(host.calls("passcode").count) reached PAM")
        #expect(try host.ledger("SELECT passcode_failures FROM users WHERE name = 'tgtest-alice'") == "5")
        #expect(try host.ledger("SELECT count(*) FROM audit WHERE outcome = 'throttled'") == "45")
        #expect(try host.ledger("SELECT count(*) FROM audit WHERE outcome = 'pending'") == "0")
        // And the right password is refused too while the delay runs: nothing reaches PAM.
        let right = try host.run(["pamtester", "tgtest", PAMHost.user, "authenticate"], input: PAMHost.password + "\n")
        #expect(right.status != 0)
        #expect(host.calls("passcode").count == 5)
    }

    @Test func aRemoteHostNeverWaitsForTheReader() throws {
        let host = try PAMHost()
        // A biometric stack that would hold the try for 30 s if it were ever called.
        try host.biometricStack("pam_exec.so quiet /bin/sleep 30")
        let remote = try host.run(["pamtester", "-I", "rhost=192.0.2.7", "tgtest", PAMHost.user, "authenticate"],
                                  input: PAMHost.password + "\n", timeout: 20)
        #expect(remote.status == 0, "\(remote)")
        #expect(host.calls("biometric").isEmpty)
        #expect(host.calls("passcode") == ["touchgate tgtest-alice   192.0.2.7"])
        #expect(try host.ledger("SELECT session FROM audit WHERE factor = 'passcode'") == "pam:tgtest rhost=192.0.2.7")
    }

    @Test func anSSHLoginOnTheTerminalNeverWaitsForTheReaderAndALocalLoginTriesIt() throws {
        let host = try PAMHost()
        // A reader that would accept at once: a try that reaches it unlocks without a password.
        try host.biometricStack("pam_exec.so quiet /bin/true")
        try host.passcodeSucceededInThisBoot()
        // No PAM_RHOST: only the terminal's login record (utmp) says the session is remote.
        let remote = try host.terminalLogin(from: "203.0.113.9")
        try remote.waitFor("Password:")
        remote.type(PAMHost.password + "\r")
        #expect(try remote.wait() == 0, "\(remote.screen.debugDescription)")
        #expect(host.calls("biometric").isEmpty, "\(host.calls("biometric"))")
        let calls = host.calls("passcode")
        #expect(calls.count == 1 && calls[0].hasPrefix("touchgate tgtest-alice  /dev/pts/"), "\(calls)")
        #expect(try host.ledger("SELECT count(*) FROM audit WHERE factor = 'passcode' AND session LIKE 'pam:tgtest tty=/dev/pts/% rhost=203.0.113.9'") == "1")
        #expect(try host.ledger("SELECT count(*) FROM audit WHERE factor = 'biometric'") == "0")
        // The same kind of terminal, its login record without a host: the reader is tried, and unlocks.
        let local = try host.terminalLogin(from: "")
        #expect(try local.wait() == 0, "\(local.screen.debugDescription)")
        #expect(host.calls("biometric").count == 1, "\(host.calls("biometric"))")
        #expect(host.calls("passcode").count == 1, "no password was asked: \(host.calls("passcode"))")
        #expect(try host.ledger("SELECT outcome FROM audit WHERE factor = 'biometric' AND session LIKE 'pam:tgtest tty=/dev/pts/%'") == "success")
    }

    @Test func theModuleStepsAsideInTheHelpersOwnStacks() throws {
        let host = try PAMHost()
        // pam-auth-update would put the module into common-auth, which the passcode stack includes.
        try host.stack("touchgate", """
            auth [success=done ignore=ignore default=die] \(BuiltPAMModule.path) helper=\(PAMHost.helperPath)
            auth optional pam_exec.so quiet \(host.path)/count passcode
            auth required pam_unix.so nodelay
            """)
        let result = try host.run(["pamtester", "tgtest", PAMHost.user, "authenticate"], input: PAMHost.password + "\n", timeout: 20)
        #expect(result.status == 0, "\(result)")
        #expect(host.calls("passcode").count == 1)
    }

    @Test func aHelperThatHangsIsKilledAtTheLimitAndTheModuleFailsClosed() throws {
        let host = try PAMHost()
        try host.biometricStack("pam_exec.so quiet /bin/sleep 60")
        try host.host("tgtest", options: "timeout=2")
        try host.passcodeSucceededInThisBoot()
        let started = Date()
        // In a PID namespace of its own, so pgrep sees this test's helper only, not other tests'.
        let hung = try host.run(["unshare", "--pid", "--fork", "--mount-proc", "/bin/bash", "-c", """
            printf '%s\\n' 'tgtest-alice-password' | pamtester tgtest tgtest-alice authenticate; status=$?
            pgrep -x touchgate-pam-h >/dev/null && echo "helper left behind"
            exit $status
            """], timeout: 40)
        #expect(hung.status != 0, "\(hung)")
        #expect(!hung.stdout.contains("left behind"))
        #expect(Date().timeIntervalSince(started) < 30)
        // The biometric try that reached the stack stays counted: the helper died with it pending.
        #expect(host.calls("biometric").count == 1)
        #expect(try host.ledger("SELECT biometric_failures FROM users WHERE name = 'tgtest-alice'") == "1")
    }

    @Test(arguments: [
        ("a helper in a world-writable directory", "mkdir -p -m 1777 /run/tg-open && cp /run/touchgate/touchgate-pam-helper /run/tg-open/h", "/run/tg-open/h"),
        ("a group-writable helper", "cp /run/touchgate/touchgate-pam-helper /run/touchgate/gw && chmod 775 /run/touchgate/gw", "/run/touchgate/gw"),
        ("a helper owned by a user", "cp /run/touchgate/touchgate-pam-helper /run/touchgate/u && chown 4242 /run/touchgate/u", "/run/touchgate/u"),
        ("a symbolic link", "ln -s /run/touchgate/touchgate-pam-helper /run/touchgate/link", "/run/touchgate/link"),
        ("a relative path", "true", "touchgate-pam-helper"),
    ])
    func aHostileHelperPathIsRefused(_ name: String, setUp: String, helper: String) throws {
        let host = try PAMHost()
        try host.stack("tgtest", """
            auth required \(BuiltPAMModule.path) helper=\(helper)
            account required pam_permit.so
            """)
        let result = try host.script("\(setUp) && cd /run/touchgate && printf '%s\\n' tgtest-alice-password | pamtester tgtest tgtest-alice authenticate",
                                     timeout: 20)
        #expect(result.status != 0, "\(name): \(result)")
        #expect(host.calls("passcode").isEmpty, "\(name)")
    }

    @Test(arguments: [
        ("a frame of an unknown kind", "printf 'Z\\000\\000' >&3; sleep 1"),
        ("a length past the limit", "printf 'I\\377\\377' >&3; sleep 1"),
        ("a cut outcome", "printf 'O\\000\\002\\000\\000' >&3"),
        ("an exit without an outcome", "exit 0"),
        ("a success and then a crash", "printf 'O\\000\\004\\000\\000\\000\\000' >&3; kill -SEGV $$"),
        ("a prompt holding a NUL", "printf 'P\\000\\003a\\000b' >&3; sleep 1"),
    ])
    func aHelperThatSpeaksNonsenseFailsClosed(_ name: String, behaviour: String) throws {
        let host = try PAMHost()
        // A root-owned stand-in for the helper, in the same place: it reads the start frame, then misbehaves.
        try host.stack("tgtest", """
            auth required \(BuiltPAMModule.path) helper=/run/touchgate/fake
            account required pam_permit.so
            """)
        let fake = "#!/bin/bash\nhead -c 3 <&3 >/dev/null\n\(behaviour)\n"
        try Data(fake.utf8).write(to: host.directory.appendingPathComponent("fake"))
        let result = try host.script("install -m 755 '\(host.path)/fake' /run/touchgate/fake && printf 'x\\n' | pamtester tgtest tgtest-alice authenticate",
                                     timeout: 20)
        #expect(result.status != 0, "\(name): \(result)")
    }
}
