import Foundation
import Testing

/// A machine with `pam_touchgate.so` in its stacks, for running the real `sudo`, `su` and
/// `pamtester` against it as root: `pam/test/pam-host.bash` runs each command in a private mount
/// namespace where this directory's files are bind-mounted over `/etc/pam.d`, `/etc/passwd`,
/// `/etc/group`, `/etc/shadow`, `/etc/shells`, `/etc/sudoers` and `/var/lib/touchgate`; the machine's own files
/// never change.
///
/// The accounts inside are root's, nobody's and the test's only (never the host's): the user
/// `tgtest-alice` (uid 4242, password ``password``) and `tgtest-bob` exist only inside, whatever
/// accounts the host has. The passcode stack
/// `touchgate` is pam_unix behind a pam_exec counter (`calls-passcode`, one line per call that
/// reached PAM); the biometric stack `touchgate-biometric` is absent unless a test writes one.
final class PAMHost: @unchecked Sendable {
    static let user = "tgtest-alice"
    static let uid = 4242
    static let password = "tgtest-alice-password"
    /// A second user, for `su` (which asks for the target's password).
    static let target = "tgtest-bob"
    static let targetPassword = "tgtest-bob-password"
    /// Where the namespace puts the helper (root-owned directories, as the module requires).
    static let helperPath = "/run/touchgate/touchgate-pam-helper"

    let directory: URL
    var path: String { directory.path }
    var ledgerPath: String { directory.appendingPathComponent("ledger/touchgate.sqlite").path }
    /// A user's home inside the namespace (their passwd entry names it).
    func home(_ user: String) -> String { path + "/home/" + user }

    static let harness = TestEnvironment.packageRoot.appendingPathComponent("pam/test/pam-host.bash").path

    /// The helper the test build made: beside the test bundle, else `.build/debug`.
    static let helperBinary: String = {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("touchgate-pam-helper").path
        if FileManager.default.isExecutableFile(atPath: besideTests) { return besideTests }
        return TestEnvironment.packageRoot.appendingPathComponent(".build/debug/touchgate-pam-helper").path
    }()

    init() throws {
        guard getuid() == 0 else { throw TestFailure("the PAM module's tests run as root (CI does)") }
        directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("touchgate-pam-host-\(UUID().uuidString)")
        let manager = FileManager.default
        try manager.createDirectory(at: directory.appendingPathComponent("ledger"), withIntermediateDirectories: true)
        chmod(path, 0o755)
        chmod(directory.appendingPathComponent("ledger").path, 0o700)
        try sh("cp -a /etc/pam.d '\(path)/pam.d'")
        // The namespace's accounts are root's and the test's, never the host's: a host account
        // named like a test user cannot take its place.
        try write("passwd", Self.systemAccounts.passwd, mode: 0o644)
        try write("group", Self.systemAccounts.group, mode: 0o644)
        try write("shadow", Self.systemAccounts.shadow, mode: 0o640)
        chown(path + "/shadow", 0, Self.shadowGroup)
        try write("shells", "/bin/sh\n/bin/bash\n/usr/bin/bash\n", mode: 0o644)
        for (name, uid, password) in [(Self.user, Self.uid, Self.password), (Self.target, Self.uid + 1, Self.targetPassword)] {
            let hash = try sh("openssl passwd -6 '\(password)'").trimmingCharacters(in: .whitespacesAndNewlines)
            let home = path + "/home/" + name
            try manager.createDirectory(atPath: home, withIntermediateDirectories: true)
            chmod(path + "/home", 0o755)
            chmod(home, 0o700)
            chown(home, uid_t(uid), gid_t(uid))
            try append("passwd", "\(name):x:\(uid):\(uid)::\(home):/bin/sh\n")
            try append("group", "\(name):x:\(uid):\n")
            try append("shadow", "\(name):\(hash):19000:0:99999:7:::\n")
        }
        try write("sudoers", "Defaults !lecture, timestamp_timeout=0, !use_pty, passwd_timeout=0\nroot ALL=(ALL) ALL\n\(Self.user) ALL=(ALL) ALL\n",
                  mode: 0o440)
        try write("count", "#!/bin/sh\necho \"$PAM_SERVICE $PAM_USER $PAM_RUSER $PAM_TTY $PAM_RHOST\" >> '\(path)/calls-'\"$1\"\n", mode: 0o755)
        try manager.copyItem(atPath: Self.helperBinary, toPath: directory.appendingPathComponent("touchgate-pam-helper").path)
        try stack("touchgate", """
            auth optional pam_exec.so quiet \(path)/count passcode
            auth required pam_unix.so nodelay
            """)
        try? manager.removeItem(atPath: path + "/pam.d/touchgate-biometric")
        try host("tgtest")
    }

    /// The entries every namespace has besides the test's users: root, and the groups setuid and
    /// setgid tools look for (tty for terminals, shadow for unix_chkpwd) with the host's ids.
    static let systemAccounts = (
        passwd: "root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
        group: "root:x:0:\ntty:x:\(groupID("tty") ?? 5):\nshadow:x:\(shadowGroup):\nnogroup:x:65534:\n",
        shadow: "root:*:19000:0:99999:7:::\nnobody:*:19000:0:99999:7:::\n")

    static let shadowGroup = groupID("shadow") ?? 42

    private static func groupID(_ name: String) -> gid_t? {
        guard let entry = getgrnam(name) else { return nil }
        return entry.pointee.gr_gid
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Makes the built touchgate ``user``'s login shell, as `touchgate-login-shell` (a link to it,
    /// as installed), listed in the namespace's /etc/shells; returns the wrapper's path.
    @discardableResult
    func installLoginShell() throws -> String {
        let wrapper = path + "/bin/touchgate-login-shell"
        try FileManager.default.createDirectory(atPath: path + "/bin", withIntermediateDirectories: true)
        chmod(path + "/bin", 0o755)
        try FileManager.default.createSymbolicLink(atPath: wrapper, withDestinationPath: TestEnvironment.binary)
        try append("shells", wrapper + "\n")
        let passwd = try String(contentsOfFile: path + "/passwd", encoding: .utf8).split(separator: "\n").map { line in
            line.hasPrefix(Self.user + ":") ? line.split(separator: ":", omittingEmptySubsequences: false).dropLast().joined(separator: ":") + ":" + wrapper
                : String(line)
        }
        try write("passwd", passwd.joined(separator: "\n") + "\n", mode: 0o644)
        return wrapper
    }

    /// Writes the stack `service` into the namespace's /etc/pam.d.
    func stack(_ service: String, _ lines: String) throws {
        try write("pam.d/\(service)", lines + "\n", mode: 0o644)
    }

    /// A host's stack: `pam_touchgate.so` (with `options`) alone in auth, pam_permit for the rest.
    func host(_ service: String, options: String = "") throws {
        try stack(service, """
            auth required \(BuiltPAMModule.path) helper=\(Self.helperPath)\(options.isEmpty ? "" : " " + options)
            account required pam_permit.so
            session required pam_permit.so
            """)
    }

    /// A biometric stack: pam_exec's counter, then `module` (pam_fprintd in the reader's tests).
    func biometricStack(_ module: String) throws {
        try stack("touchgate-biometric", """
            auth optional pam_exec.so quiet \(path)/count biometric
            auth [success=done default=die] \(module)
            auth requisite pam_deny.so
            """)
    }

    /// Runs `command` as root inside the namespace; `bus` is a private system bus's socket for
    /// /run/dbus/system_bus_socket.
    func run(_ command: [String], input: String = "", bus: String? = nil, timeout: TimeInterval = 60) throws -> RunResult {
        try RunningProcess.run(["/bin/bash", Self.harness, path] + command, input: Data(input.utf8),
                               environment: environment(bus: bus), timeout: timeout)
    }

    /// Runs a bash script inside the namespace.
    func script(_ text: String, input: String = "", bus: String? = nil, timeout: TimeInterval = 60) throws -> RunResult {
        try run(["/bin/bash", "-c", text], input: input, bus: bus, timeout: timeout)
    }

    func environment(bus: String? = nil) -> [String: String] {
        var environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C"]
        if let bus { environment["BUS_SOCKET"] = bus }
        return environment
    }

    /// The command that runs `arguments` as tgtest-alice (real and effective ids, no other groups).
    static func asUser(_ arguments: [String]) -> [String] {
        ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"] + arguments
    }

    /// How many calls reached the `kind` stack (`passcode`, `biometric`), and what each got.
    func calls(_ kind: String) -> [String] {
        let text = (try? String(contentsOfFile: path + "/calls-" + kind, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// Runs `sql` on the ledger with the sqlite3 shell; what it printed.
    @discardableResult
    func ledger(_ sql: String) throws -> String {
        try sh("sqlite3 '\(ledgerPath)' \"\(sql)\"").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @discardableResult
    private func sh(_ command: String) throws -> String {
        let result = try TestEnvironment.execute("/bin/sh", ["-c", command], input: nil,
                                                 environment: ProcessInfo.processInfo.environment)
        guard result.status == 0 else { throw TestFailure("\(command): \(result)") }
        return result.stdout
    }

    private func write(_ name: String, _ text: String, mode: mode_t) throws {
        let file = path + "/" + name
        try? FileManager.default.removeItem(atPath: file)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        chmod(file, mode)
    }

    private func append(_ name: String, _ text: String) throws {
        let handle = try FileHandle(forWritingTo: directory.appendingPathComponent(name))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }
}
