import Foundation
import Testing

/// The shipped passcode service (`pam/touchgate`) on a machine whose `common-auth` is shaped as
/// Debian writes it with libpam-fprintd's pam-auth-update profile on (pam_fprintd.so first), with
/// the real fprintd and its virtual device behind pam_fprintd.
///
/// libpam reads `@include`d files from `/etc/pam.d` even under `pam_start_confdir`, so the
/// Debian-shaped common-auth is bind-mounted over `/etc/pam.d/common-auth` in a private mount
/// namespace (as root, as CI runs): the machine's own file is never touched.
///
/// A suite inside ``FingerprintTests`` (serialized): it shares the one virtual reader, which a
/// second verify at the same time would find busy.
extension FingerprintTests {
@Suite(.serialized) struct ShippedPAMStackTests {
    /// Debian's common-auth with fingerprint login enabled, as pam-auth-update writes it.
    static let debianCommonAuth = """
        auth\t[success=2 default=ignore]\tpam_fprintd.so max-tries=1 timeout=10
        auth\t[success=1 default=ignore]\tpam_unix.so nullok try_first_pass
        auth\trequisite\t\t\tpam_deny.so
        auth\trequired\t\t\tpam_permit.so

        """

    /// A configuration directory with the shipped `touchgate` and `extra` files.
    static func stacks(_ world: TestEnvironment, extra: [String: String] = [:]) throws -> String {
        let directory = world.directory.appendingPathComponent("debian-pam")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestEnvironment.packageRoot.appendingPathComponent("pam/touchgate"),
                                         to: directory.appendingPathComponent("touchgate"))
        for (name, text) in extra {
            try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return directory.path
    }

    /// A test world whose touchgate reaches the running virtual reader (fprintd on its private
    /// bus, alice's finger enrolled).
    static func worldWithTheReader() throws -> TestEnvironment {
        let reader = try FingerprintReader.start()
        try reader.ensureRunning()
        let world = try TestEnvironment()
        world.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = reader.busAddress
        return world
    }

    @Test func theShippedPasscodeServiceNeverAsksForAFingerWhateverCommonAuthHolds() throws {
        try #require(geteuid() == 0, "a private mount namespace needs root (CI runs as root)")
        let world = try Self.worldWithTheReader()
        world.extraEnvironment["TOUCHGATE_PAM_CONFDIR"] = try Self.stacks(world)
        let commonAuth = world.directory.appendingPathComponent("common-auth").path
        try Self.debianCommonAuth.write(toFile: commonAuth, atomically: true, encoding: .utf8)
        // No account alice, whatever the host has: its accounts are not in these files.
        let passwd = world.directory.appendingPathComponent("passwd").path
        let shadow = world.directory.appendingPathComponent("shadow").path
        try PAMHost.systemAccounts.passwd.write(toFile: passwd, atomically: true, encoding: .utf8)
        try PAMHost.systemAccounts.shadow.write(toFile: shadow, atomically: true, encoding: .utf8)
        chmod(shadow, 0o600)
        // alice's finger is enrolled in fprintd: a pam_fprintd reached through common-auth would
        // say "Swipe …", wait 10 s for a finger and check it outside touchgate's count.
        let script = "mount --bind '\(passwd)' /etc/passwd && mount --bind '\(shadow)' /etc/shadow && "
            + "mount --bind '\(commonAuth)' /etc/pam.d/common-auth && exec '\(TestEnvironment.binary)' -S auth"
        let result = try TestEnvironment.execute("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", script],
                                                 input: "not-the-password\n", environment: world.environment, timeout: 30)
        #expect(!result.stderr.contains(FingerprintReader.waitingMessage), "\(result)")
        #expect(result.stderr.contains("Password:"), "\(result)")
        // pam_unix alone: alice is no account here (passcodeNotSet), or her password is another.
        #expect([1, 5].contains(result.status), "\(result)")
    }

    /// The shipped stack against a real account: the test user in files of the test's own (root
    /// and alice, none of the host's accounts) bind-mounted over /etc/passwd and /etc/shadow in a
    /// private namespace; its password unlocks, a wrong one is one
    /// counted failure, and still no finger is asked for.
    @Test func theShippedPasscodeServiceChecksTheAccountPasswordThroughPamUnix() throws {
        try #require(geteuid() == 0, "a private mount namespace needs root (CI runs as root)")
        let world = try Self.worldWithTheReader()
        world.extraEnvironment["TOUCHGATE_PAM_CONFDIR"] = try Self.stacks(world)
        let hash = try TestEnvironment.execute("/usr/bin/openssl", ["passwd", "-6", "-salt", "touchgatesalt", "shipped-secret"],
                                               environment: ProcessInfo.processInfo.environment).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let passwd = world.directory.appendingPathComponent("passwd").path
        let shadow = world.directory.appendingPathComponent("shadow").path
        let commonAuth = world.directory.appendingPathComponent("common-auth").path
        // alice, whose finger fprintd knows (an included pam_fprintd would ask for it), beside
        // root alone: none of the host's accounts (its own alice, if it has one) is in these files.
        try (PAMHost.systemAccounts.passwd + "alice:x:4343:4343::/nonexistent:/bin/sh\n")
            .write(toFile: passwd, atomically: true, encoding: .utf8)
        try "alice:\(hash):20000:0:99999:7:::\n".write(toFile: shadow, atomically: true, encoding: .utf8)
        chmod(shadow, 0o600)
        try Self.debianCommonAuth.write(toFile: commonAuth, atomically: true, encoding: .utf8)
        func auth(_ secret: String) throws -> RunResult {
            let script = "mount --bind '\(passwd)' /etc/passwd && mount --bind '\(shadow)' /etc/shadow && "
                + "mount --bind '\(commonAuth)' /etc/pam.d/common-auth && exec '\(TestEnvironment.binary)' -S --json auth"
            return try TestEnvironment.execute("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", script],
                                               input: secret + "\n", environment: world.environment, timeout: 30)
        }
        let wrong = try auth("not-the-secret")
        // A wrong password, then the end of input at the next try: cancelled, the wrong one counted.
        #expect(wrong.json?["outcome"] as? String == "userCancel", "\(wrong)")
        #expect(try world.statusJSON()["passcodeFailures"] as? Int == 1)
        let right = try auth("shipped-secret")
        #expect(right.status == 0, "\(right)")
        #expect(try world.statusJSON()["passcodeFailures"] as? Int == 0)
        for result in [wrong, right] {
            #expect(!result.stderr.contains(FingerprintReader.waitingMessage), "\(result)")
        }
    }

    /// A stack that says something and then waits (Debian's old common-auth, kept by an admin as
    /// the passcode service): its line shows at once, not with the next prompt 10 s later. The
    /// stack runs once a passcode is submitted at touchgate's own prompt (the try is made then).
    @Test func whatTheStackSaysShowsWhenItSaysIt() throws {
        let world = try Self.worldWithTheReader()
        let directory = try Self.stacks(world, extra: ["touchgate-kept": Self.debianCommonAuth])
        try world.setConfig("passcode-service", "touchgate-kept")
        let tmux = try TmuxHarness(world: world)
        defer { tmux.shutdown() }
        try tmux.startInnerSession("a", command: "TOUCHGATE_PAM_CONFDIR='\(directory)' '\(TestEnvironment.binary)' auth; sleep 100")
        try gateEventually("touchgate's own prompt", timeout: 20) { try tmux.innerPane("a").contains("Password:") }
        _ = try tmux.inner("send-keys", "-t", "a", "-l", "shipped-secret")
        _ = try tmux.inner("send-keys", "-t", "a", "Enter")
        do {
            try gateEventually("pam_fprintd's line in the pane", timeout: 8) {
                try tmux.innerPane("a").contains(FingerprintReader.waitingMessage)
            }
        } catch {
            throw TestFailure("\(error): \(try tmux.innerPane("a"))")
        }
        // Still waiting for the finger: no second prompt yet, and the line is already there.
        let pane = try tmux.innerPane("a")
        #expect(pane.components(separatedBy: "Password:").count == 2, "\(pane)")
    }
}
}
