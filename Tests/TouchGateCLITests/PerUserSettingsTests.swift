import Foundation
import Testing

/// Settings are per user: a change made for one user (`--user`, `TOUCHGATE_USER`) never reaches
/// another user's lock, and `config get` says whose settings it shows. Configuration changes are
/// in the audit log, and JSON gives numbers as numbers.
@Suite struct PerUserSettingsTests {
    /// alice enrolled with the lock on, and session `term-1` launched (locked).
    static func lockedAlice() throws -> TestEnvironment {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        try world.gateEvents(["did-finish-launching"], session: "term-1")
        return world
    }

    /// Runs `config set KEY VALUE` for `nobody`, named by `--user` or by `TOUCHGATE_USER`.
    static func setForNobody(_ world: TestEnvironment, _ key: String, _ value: String, through: String) throws -> RunResult {
        through == "--user"
            ? try world.runRaw(["config", "set", key, value, "--user", "nobody"])
            : try world.runRaw(["config", "set", key, value], environment: ["TOUCHGATE_USER": "nobody"])
    }

    /// The attack: nobody's lock is off, so nobody's change needs no secret; on a
    /// store-wide setting it then opened alice's locked session with any answer.
    @Test(arguments: ["--user", "TOUCHGATE_USER"])
    func anotherUsersBiometricServiceNeverOpensALockedSession(through: String) throws {
        let world = try Self.lockedAlice()
        let calls = world.allCalls()
        let set = try Self.setForNobody(world, "biometric-service", "touchgate-permit", through: through)
        #expect(set.status == 0, "nobody's lock is off: \(set)")
        #expect(world.allCalls() == calls, "nothing was asked for nobody's own setting")

        let gate = try world.run(["-S", "gate", "--session", "term-1"], input: "anything at all\n", timeout: 30)
        #expect(gate.status != 0, "alice's session opened without a secret: \(gate)")
        #expect(world.calls("touchgate-permit") == 0, "alice's check never used nobody's stack")
        #expect(try world.gateSessionStatus("term-1")?.locked == true)

        let alice = try world.run(["--json", "config", "get"])
        #expect(alice.json?["user"] as? String == "alice", "\(alice)")
        #expect(alice.json?["biometric-service"] as? String == "touchgate-biometric", "\(alice)")
        let nobody = try world.run(["--json", "config", "get", "--user", "nobody"])
        #expect(nobody.json?["user"] as? String == "nobody", "\(nobody)")
        #expect(nobody.json?["biometric-service"] as? String == "touchgate-permit", "\(nobody)")
    }

    @Test(arguments: ["--user", "TOUCHGATE_USER"])
    func anotherUsersMaxBiometricFailuresLeavesALockoutInPlace(through: String) throws {
        let world = try Self.lockedAlice()
        _ = try world.sqlite("UPDATE users SET biometric_failures = 5 WHERE name = 'alice'")
        let set = try Self.setForNobody(world, "max-biometric-failures", "100", through: through)
        #expect(set.status == 0, "\(set)")
        let biometric = world.calls("touchgate-biometric")
        let auth = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        CoreExpect.outcome(auth, "biometryLockout", policy: "biometrics")
        #expect(world.calls("touchgate-biometric") == biometric, "a locked-out factor never reaches PAM")
    }

    @Test(arguments: ["--user", "TOUCHGATE_USER"])
    func anotherUsersPasscodeDelaysLeaveAThrottleInPlace(through: String) throws {
        let world = try Self.lockedAlice()
        _ = try world.sqlite("""
            UPDATE users SET passcode_failures = 5, last_passcode_failure = strftime('%s', 'now'), biometric_failures = 5
            WHERE name = 'alice'
            """)
        let set = try Self.setForNobody(world, "passcode-delays", "0", through: through)
        #expect(set.status == 0, "\(set)")
        let passcode = world.calls("touchgate")
        let auth = try world.run(["-S", "--json", "auth"], input: "alice-passcode\n")
        CoreExpect.outcome(auth, "authenticationFailed", policy: "device-owner")
        #expect((auth.json?["retryAfterSeconds"] as? Int ?? 0) > 0, "\(auth)")
        #expect(world.calls("touchgate") == passcode, "a throttled passcode never reaches PAM")
    }

    /// A weakening change for a user whose lock is on needs that user's own secret.
    @Test func weakeningAnotherLockedUsersSettingNeedsTheirSecret() throws {
        let world = try TestEnvironment()
        world.user = "bob"
        try world.enableAndEnroll()
        world.user = "alice"
        let wrong = try world.run(["-S", "--json", "config", "set", "grace-seconds", "600", "--user", "bob"],
                                  input: "alice-passcode\nalice-passcode\nalice-passcode\nalice-passcode\n")
        #expect(wrong.status != 0, "alice's secret does not stand for bob's: \(wrong)")
        #expect(try world.run(["config", "get", "grace-seconds", "--user", "bob"]).stdout == "0\n")
        let right = try world.run(["-S", "--json", "config", "set", "grace-seconds", "600", "--user", "bob"],
                                  input: "bob-finger\n")
        #expect(right.status == 0, "\(right)")
        #expect(right.json?["user"] as? String == "bob", "\(right)")
        #expect(right.json?["grace-seconds"] as? Int == 600, "\(right)")
        #expect(try world.run(["config", "get", "grace-seconds", "--user", "bob"]).stdout == "600\n")
        #expect(try world.run(["config", "get", "grace-seconds"]).stdout == "0\n", "alice keeps her own")
    }

    @Test func configGetSaysWhoseSettingsItShows() throws {
        let world = try TestEnvironment()
        try world.setConfig("grace-seconds", "30")
        let text = try world.run(["config", "get"])
        #expect(text.status == 0, "\(text)")
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.first == "# settings of user alice", "\(text)")
        #expect(lines.contains("grace-seconds=30"), "\(text)")
        #expect(lines.contains("log-retention=1000"), "\(text)")
        let bob = try world.run(["config", "get", "--user", "bob"])
        #expect(bob.stdout.split(separator: "\n").first == "# settings of user bob", "\(bob)")
        #expect(bob.stdout.contains("grace-seconds=0\n"), "a user never configured has the defaults: \(bob)")
    }

    /// Item 18: numbers are JSON numbers.
    @Test func configJSONGivesNumbersAsNumbers() throws {
        let world = try TestEnvironment()
        try world.setConfig("passcode-delays", "0,5,10")
        let get = try world.run(["--json", "config", "get"])
        #expect(get.status == 0, "\(get)")
        for key in ["max-biometric-failures", "biometric-tries-per-evaluation", "grace-seconds", "reuse-seconds",
                    "idle-seconds", "log-retention"] {
            #expect(get.json?[key] is NSNumber, "\(key): \(get.stdout)")
        }
        #expect(get.json?["passcode-delays"] as? [Int] == [0, 5, 10], "\(get.stdout)")
        #expect(get.stdout.contains("\"max-biometric-failures\":5"), "\(get.stdout)")
        #expect(get.json?["passcode-service"] as? String == "touchgate")
        let one = try world.run(["--json", "config", "get", "idle-seconds"])
        #expect(one.stdout == "{\"user\":\"alice\",\"idle-seconds\":0}\n", "\(one)")
    }

    /// Item 18: a configuration change is in the audit log: whose setting, which, old and new
    /// value, and who made it; in text and JSON.
    @Test func configurationChangesAreAudited() throws {
        let world = try TestEnvironment()
        try world.setConfig("grace-seconds", "30")
        let set = try world.run(["config", "set", "grace-seconds", "60", "--user", "bob"])
        #expect(set.status == 0, "\(set)")
        let log = try world.run(["--json", "log"])
        let entries = try #require(log.json?["entries"] as? [[String: Any]], "\(log)")
        let changes = entries.compactMap { entry -> (String, [String: Any])? in
            (entry["change"] as? [String: Any]).map { (entry["user"] as? String ?? "", $0) }
        }
        #expect(changes.count == 2, "\(log)")
        #expect(changes.first?.0 == "alice")
        #expect(changes.first?.1["key"] as? String == "grace-seconds")
        #expect(changes.first?.1["old"] as? String == "0")
        #expect(changes.first?.1["new"] as? String == "30")
        #expect(changes.first?.1["by"] as? String == "root")
        #expect(changes.last?.0 == "bob")
        #expect(changes.last?.1["old"] as? String == "0", "bob's old value is bob's own")
        #expect(changes.last?.1["new"] as? String == "60")
        #expect(entries.first { $0["change"] != nil }?["policy"] as? String == "config")

        let text = try world.run(["log"])
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.contains { $0.contains("  alice  ") && $0.hasSuffix("config  setting  changed  grace-seconds: '0' -> '30' by root") },
                "\(text)")
        #expect(lines.contains { $0.contains("  bob  ") && $0.hasSuffix("config  setting  changed  grace-seconds: '0' -> '60' by root") },
                "\(text)")
        #expect(try world.sqlite("SELECT count(*) FROM audit WHERE setting IS NOT NULL") == "2")
    }

    /// A store of the previous schema (store-wide settings) keeps, for every user it knew, the
    /// values it had; a user it never knew gets the defaults.
    @Test func upgradingCopiesTheStoreWideSettingsToEveryKnownUser() throws {
        let world = try TestEnvironment()
        let files = try CoreMigrationSchemaTests.migrationFiles().filter { $0.version <= 2 }
        try #require(files.count == 2)
        let directory = (world.storePath as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        var script = ""
        for file in files {
            script += """
                CREATE TABLE IF NOT EXISTS touchgate_migrations (
                    version    INTEGER PRIMARY KEY NOT NULL,
                    name       TEXT NOT NULL,
                    applied_at REAL NOT NULL
                );
                \(try String(contentsOf: file.url, encoding: .utf8));
                INSERT INTO touchgate_migrations VALUES (\(file.version), '\(file.name)', 0);

                """
        }
        try world.sqliteScript(script + """
            INSERT INTO users (name, enabled) VALUES ('alice', 1), ('bob', 0);
            INSERT INTO config (key, value) VALUES ('biometric-service', 'touchgate-slow'), ('max-biometric-failures', '3');
            PRAGMA user_version = 2;
            """)
        #expect(chmod(world.storePath, 0o600) == 0)
        for user in ["alice", "bob"] {
            let get = try world.run(["--json", "config", "get", "--user", user])
            #expect(get.status == 0, "\(get)")
            #expect(get.json?["biometric-service"] as? String == "touchgate-slow", "\(user): \(get)")
            #expect(get.json?["max-biometric-failures"] as? Int == 3, "\(user): \(get)")
        }
        let carol = try world.run(["--json", "config", "get", "--user", "carol"])
        #expect(carol.json?["biometric-service"] as? String == "touchgate-biometric", "\(carol)")
        #expect(carol.json?["max-biometric-failures"] as? Int == 5, "\(carol)")
        #expect(try world.statusJSON()["enabled"] as? Bool == true)
    }
}
