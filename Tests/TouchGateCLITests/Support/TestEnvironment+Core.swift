import Foundation
import Testing

/// Additions to ``TestEnvironment`` for the authenticator-core end-to-end suites.
extension TestEnvironment {
    /// `touchgate --json status`, parsed; fails the test when it does not succeed.
    func statusJSON() throws -> [String: Any] {
        let result = try run(["--json", "status"])
        guard result.status == 0, let json = result.json else { throw TestFailure("status failed: \(result)") }
        return json
    }

    /// Sets a configuration key while the lock is off (no authentication needed).
    func setConfig(_ key: String, _ value: String) throws {
        let result = try run(["config", "set", key, value])
        guard result.status == 0 else { throw TestFailure("config set \(key) \(value) failed: \(result)") }
    }

    /// Enrolls `user` (passcode, then finger) without turning the lock on.
    func enrollWithoutEnabling() throws {
        let enroll = try run(["-S", "enroll"], input: Self.passcode[user]! + "\n" + Self.finger[user]! + "\n")
        guard enroll.status == 0 else { throw TestFailure("enroll failed: \(enroll)") }
    }

    /// The command line that runs `touchgate` as `nobody` (`setpriv`).
    static let asNobody = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", binary]

    /// Hands the store's directory to `nobody` and lets `nobody` read the stacks' password files
    /// and count calls, for tests that run ``asNobody`` (the test process must be root).
    func handStoreToNobody() throws {
        let directory = URL(fileURLWithPath: storePath).deletingLastPathComponent().path
        for (tool, arguments) in [("/bin/chown", ["-R", "nobody:nogroup", directory]), ("/bin/chmod", ["0777", pamDirectory.path])] {
            let result = try Self.execute(tool, arguments, environment: ProcessInfo.processInfo.environment)
            guard result.status == 0 else { throw TestFailure("\(tool) failed: \(result)") }
        }
    }

    /// Runs `touchgate arguments…` in a new session (`setsid`), so it has no controlling terminal,
    /// with standard input at end of file.
    func runWithoutTerminal(_ arguments: [String], timeout: TimeInterval = 60) throws -> RunResult {
        try RunningProcess.run([Self.binary] + arguments, environment: environment, newSession: true, timeout: timeout)
    }

    /// The environment of a run with no PAM redirection at all (no pam_wrapper, no
    /// `TOUCHGATE_PAM_CONFDIR`): for `--pam-confdir`, which must then point at the stacks itself.
    var environmentWithoutPAMWrapper: [String: String] {
        var environment = self.environment
        for name in ["LD_PRELOAD", "PAM_WRAPPER", "PAM_WRAPPER_SERVICE_DIR", "TOUCHGATE_PAM_CONFDIR"] {
            environment[name] = nil
        }
        return environment
    }

    /// Runs `touchgate arguments…` without pam_wrapper in the environment.
    @discardableResult
    func runWithoutPAMWrapper(_ arguments: [String], input: String? = nil, timeout: TimeInterval = 60) throws -> RunResult {
        try Self.execute(Self.binary, arguments, input: input, environment: environmentWithoutPAMWrapper, timeout: timeout)
    }

    /// Folds the write-ahead log touchgate leaves beside the store into the store file: `sqlite3`,
    /// closing as the last connection, checkpoints and removes the `-wal` and `-shm` files.
    func foldWriteAheadLog(path: String? = nil) throws {
        let base = path ?? storePath
        try sqliteScript("PRAGMA wal_checkpoint(TRUNCATE);", path: base)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: base + suffix) {
            throw TestFailure("sqlite3 left \(base + suffix) behind")
        }
    }

    /// Runs an SQL script (which may begin with a `--` comment) through `sqlite3`'s standard input.
    @discardableResult
    func sqliteScript(_ sql: String, path: String? = nil) throws -> String {
        let result = try Self.execute("/usr/bin/sqlite3", Self.sqliteWaiting + ["-bail", path ?? storePath], input: sql,
                                      environment: ProcessInfo.processInfo.environment)
        guard result.status == 0, result.stderr.isEmpty else { throw TestFailure("sqlite3 failed: \(result)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The bytes of the store file and of its companions with `suffixes` (missing ones are empty).
    func storeFileBytes(_ suffixes: [String] = ["-wal", "-shm"]) -> [Data] {
        ([""] + suffixes).map { FileManager.default.contents(atPath: storePath + $0) ?? Data() }
    }

    /// The bytes that hold the store's rows: the file and its write-ahead log (missing: empty).
    ///
    /// Not the `-shm` file: that is SQLite's index of the log, which any process that opens the
    /// store first rebuilds (and leaves beside it), whether or not it then reads or writes a row.
    func storeDataBytes() -> [Data] {
        storeFileBytes(["-wal"])
    }

    /// Runs a biometric evaluation against the stack `service` (set as `biometric-service`) and
    /// expects it to end as `outcome` after `calls` calls of that stack (`nil`: not checked),
    /// with no failure counted.
    func expectUncountedBiometricOutcome(
        _ outcome: String, service: String, calls: Int?, input: String = "alice-finger\n",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try setConfig("biometric-service", service)
        let result = try run(["-S", "--json", "auth", "--policy", "biometrics"], input: input)
        CoreExpect.outcome(result, outcome, policy: "biometrics", sourceLocation: sourceLocation)
        if let calls { #expect(self.calls(service) == calls, sourceLocation: sourceLocation) }
        #expect(try statusJSON()["biometricFailures"] as? Int == 0, sourceLocation: sourceLocation)
    }

    /// Waits until `condition` holds, or fails after `timeout`.
    func waitFor(_ what: String, timeout: TimeInterval = 30, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { throw TestFailure("timed out waiting for \(what)") }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }
}

extension RunResult {
    /// The JSON `outcome` member.
    var jsonOutcome: String? { json?["outcome"] as? String }
    /// The JSON `code` member.
    var jsonCode: Int? { json?["code"] as? Int }
    /// The JSON `policy` member.
    var jsonPolicy: String? { json?["policy"] as? String }
    /// Standard error's non-empty lines.
    var stderrLines: [Substring] { stderr.split(separator: "\n", omittingEmptySubsequences: true) }
}

/// Checks of an evaluation's reported outcome: exit status, JSON `outcome`, `code` and `policy`.
enum CoreExpect {
    /// Each outcome's LAError raw value and exit status, as the issue defines them.
    static let outcomes: [String: (code: Int, exit: Int32)] = [
        "success": (0, 0), "authenticationFailed": (-1, 1), "userCancel": (-2, 2), "userFallback": (-3, 3),
        "systemCancel": (-4, 4), "passcodeNotSet": (-5, 5), "biometryNotAvailable": (-6, 6),
        "biometryNotEnrolled": (-7, 7), "biometryLockout": (-8, 8), "appCancel": (-9, 9),
        "invalidContext": (-10, 10), "notInteractive": (-1004, 11),
    ]

    static func outcome(
        _ result: RunResult, _ outcome: String, policy: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let expected = outcomes[outcome] else {
            Issue.record("unknown outcome \(outcome)", sourceLocation: sourceLocation)
            return
        }
        #expect(result.status == expected.exit, "exit status for \(outcome): \(result)", sourceLocation: sourceLocation)
        #expect(result.jsonOutcome == outcome, "\(result)", sourceLocation: sourceLocation)
        #expect(result.jsonCode == expected.code, "\(result)", sourceLocation: sourceLocation)
        if let policy { #expect(result.jsonPolicy == policy, "\(result)", sourceLocation: sourceLocation) }
        if outcome != "authenticationFailed" {
            #expect(result.json?["retryAfterSeconds"] == nil, "\(result)", sourceLocation: sourceLocation)
        }
    }
}

extension TestEnvironment {
    /// A user name no account of this host has (pam_unix answers PAM_USER_UNKNOWN for it),
    /// whatever accounts the host has.
    static let absentAccount: String = {
        var name = "touchgate-no-such-user"
        while getpwnam(name) != nil { name += "-" + String(UInt32.random(in: 0...UInt32.max), radix: 36) }
        return name
    }()
}
