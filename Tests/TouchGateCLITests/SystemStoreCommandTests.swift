import Foundation
import Testing

/// The administrator's side of the ledger pam_touchgate.so counts in: `touchgate --system
/// status|log|reset|config`, and root's `touchgate --user NAME reset` on NAME's own store, run in
/// ``PAMHost``'s namespace (its ledger over /var/lib/touchgate, its users in /etc/passwd).
@Suite(.serialized)
struct SystemStoreCommandTests {
    private func touchgate(_ host: PAMHost, _ arguments: [String], asUser: Bool = false, home: String? = nil) throws -> RunResult {
        let command = ["/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=\(home ?? host.path + "/roothome")", TestEnvironment.binary] + arguments
        return try host.run(asUser ? PAMHost.asUser(command) : command)
    }

    @Test func theAdministratorReadsAndResetsTheLedgerWithJSON() throws {
        let host = try PAMHost()
        for _ in 0..<2 {
            _ = try host.run(["pamtester", "tgtest", PAMHost.user, "authenticate"], input: "wrong\n")
        }
        let status = try touchgate(host, ["--system", "--json", "status", "--user", "tgtest-alice"])
        #expect(status.status == 0, "\(status)")
        #expect(status.json?["passcodeFailures"] as? Int == 2, "\(status)")
        #expect(status.json?["store"] as? String == "/var/lib/touchgate/touchgate.sqlite")
        let log = try touchgate(host, ["--system", "--json", "log", "--user", "tgtest-alice"])
        #expect(log.status == 0, "\(log)")
        #expect(log.stdout.contains("pam:tgtest") && log.stdout.contains("authenticationFailed"), "\(log)")
        // Root needs no passcode to reset (standard input is empty: nothing is asked).
        let reset = try touchgate(host, ["--system", "--json", "reset", "--user", "tgtest-alice"])
        #expect(reset.status == 0, "\(reset)")
        #expect(reset.json?["outcome"] as? String == "success")
        #expect(try host.ledger("SELECT passcode_failures FROM users WHERE name = 'tgtest-alice'") == "0")
        let set = try touchgate(host, ["--system", "--json", "config", "set", "max-biometric-failures", "3", "--user", "tgtest-alice"])
        #expect(set.status == 0, "\(set)")
        let get = try touchgate(host, ["--system", "--json", "config", "get", "--user", "tgtest-alice"])
        #expect(get.json?["max-biometric-failures"] as? Int == 3 || get.json?["max-biometric-failures"] as? String == "3", "\(get)")
        // A user can neither read nor write it (the ledger is root's, 0600).
        let asAlice = try touchgate(host, ["--system", "--json", "reset", "--user", "tgtest-alice"], asUser: true, home: host.home("tgtest-alice"))
        #expect(asAlice.status == 74, "\(asAlice)")
        #expect(try host.ledger("SELECT count(*) FROM audit WHERE policy = 'reset'") == "1")
    }

    @Test func theAdministratorsResetClearsTheRemoteHostsBudgetToo() throws {
        let host = try PAMHost()
        for attempt in 1...6 {
            _ = try host.run(["pamtester", "-I", "rhost=192.0.2.44", "tgtest", PAMHost.user, "authenticate"], input: "wrong-\(attempt)\n")
        }
        #expect(try host.ledger("SELECT failures FROM remote_passcode_tries WHERE name = 'tgtest-alice'") == "5")
        let reset = try touchgate(host, ["--system", "--json", "reset", "--user", "tgtest-alice"])
        #expect(reset.status == 0, "\(reset)")
        #expect(try host.ledger("SELECT count(*) FROM remote_passcode_tries") == "0")
        // The remote host's password unlocks again at once.
        let right = try host.run(["pamtester", "-I", "rhost=192.0.2.44", "tgtest", PAMHost.user, "authenticate"],
                                 input: PAMHost.password + "\n")
        #expect(right.status == 0, "\(right)")
    }

    @Test func statusShowsTheRemoteHostsBudgetApartFromTheLocalOne() throws {
        let host = try PAMHost()
        // Two wrong passwords from a remote host, none at the keyboard: listed, and counted apart.
        for attempt in 1...2 {
            _ = try host.run(["pamtester", "-I", "rhost=192.0.2.45", "tgtest", PAMHost.user, "authenticate"], input: "wrong-\(attempt)\n")
        }
        let listing = try touchgate(host, ["--system", "--json", "status"])
        JSONContractTests.check("status", listing)
        let users = try #require(listing.json?["users"] as? [[String: Any]], "\(listing)")
        let row = try #require(users.first { $0["user"] as? String == PAMHost.user }, "\(listing)")
        #expect(row["passcodeFailures"] as? Int == 0, "\(listing)")
        #expect(row["remotePasscodeFailures"] as? Int == 2, "\(listing)")
        let one = try touchgate(host, ["--system", "--json", "status", "--user", PAMHost.user])
        JSONContractTests.check("status", one)
        #expect(one.json?["passcodeFailures"] as? Int == 0, "\(one)")
        #expect(one.json?["remotePasscodeFailures"] as? Int == 2, "\(one)")
        let text = try touchgate(host, ["--system", "status", "--user", PAMHost.user])
        #expect(text.stdout.contains("remote failures:    2"), "\(text)")
        // A user's own store has no remote budget to show.
        #expect(!text.stdout.contains("lock:"), "\(text)")
    }

    @Test func systemGoesWithTheAdministratorsCommandsOnly() throws {
        let host = try PAMHost()
        let auth = try touchgate(host, ["--system", "auth", "--user", "tgtest-alice"])
        #expect(auth.status == 64, "\(auth)")
        let both = try touchgate(host, ["--system", "--store", "/tmp/x.sqlite", "status"])
        #expect(both.status == 64, "\(both)")
    }

    @Test func rootResetsAUsersOwnStoreThroughTheirHomeAndMakesNoStoreOfItsOwn() throws {
        let host = try PAMHost()
        // tgtest-alice's own store, with one wrong passcode counted (pam_unix checks her own password).
        let wrong = try host.run(PAMHost.asUser(["/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=\(host.home("tgtest-alice"))",
                                                 TestEnvironment.binary, "-S", "auth"]), input: "wrong\n")
        // One wrong answer, then end of input at the next prompt: userCancel, the wrong one counted.
        #expect(wrong.status == 2, "\(wrong)")
        let store = host.home("tgtest-alice") + "/.local/state/touchgate/touchgate.sqlite"
        func failures() throws -> String {
            try TestEnvironment.execute("/usr/bin/sqlite3", [store, "SELECT passcode_failures FROM users WHERE name = 'tgtest-alice'"],
                                        environment: ["PATH": "/usr/bin"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try failures() == "1")
        let reset = try touchgate(host, ["--user", "tgtest-alice", "--json", "reset"])
        #expect(reset.status == 0, "\(reset)")
        #expect(reset.json?["outcome"] as? String == "success")
        #expect(try failures() == "0")
        // The store and its log files are still tgtest-alice's, and root's home got nothing.
        for file in [store, store + "-wal", store + "-shm"] where FileManager.default.fileExists(atPath: file) {
            var info = stat()
            #expect(stat(file, &info) == 0 && info.st_uid == uid_t(PAMHost.uid), "\(file)")
        }
        #expect(!FileManager.default.fileExists(atPath: host.path + "/roothome/.local"))
        // tgtest-bob has no store: nothing is reset and nothing is made.
        let none = try touchgate(host, ["--user", "tgtest-bob", "reset"])
        #expect(none.status == 74, "\(none)")
        #expect(none.stderr.contains("has no touchgate store"), "\(none)")
        #expect(!FileManager.default.fileExists(atPath: host.home("tgtest-bob") + "/.local"))
    }

    /// A user locked down by the administrator (or by themselves) is listed without a failure counted.
    @Test func withoutAUserStatusListsTheLockedDownUsersToo() throws {
        let host = try PAMHost()
        let lock = try touchgate(host, ["--system", "lockdown", "--user", "tgtest-bob"])
        #expect(lock.status == 0, "\(lock)")
        let listing = try touchgate(host, ["--system", "--json", "status"])
        JSONContractTests.check("status", listing)
        let users = try #require(listing.json?["users"] as? [[String: Any]], "\(listing)")
        let row = try #require(users.first { $0["user"] as? String == "tgtest-bob" }, "\(listing)")
        #expect(row["adminLock"] as? Bool == true, "\(listing)")
        #expect(row["lockdown"] as? Bool == false, "\(listing)")
        #expect(row["passcodeRequired"] as? String == "adminLock", "\(listing)")
        #expect(row["biometricFailures"] as? Int == 0 && row["passcodeFailures"] as? Int == 0, "\(listing)")
        let text = try touchgate(host, ["--system", "status"])
        #expect(text.stdout.contains("LOCK") && text.stdout.contains("PASSCODE REQUIRED"), "\(text)")
        let line = try #require(text.stdout.split(separator: "\n").first { $0.hasPrefix("tgtest-bob ") }, "\(text)")
        #expect(line.contains(" admin ") && line.hasSuffix("adminLock"), "\(text)")
        // A passcode success at sudo lifts it: bob is no longer listed.
        let right = try host.run(["pamtester", "tgtest", PAMHost.target, "authenticate"], input: PAMHost.targetPassword + "\n")
        #expect(right.status == 0, "\(right)")
        let after = try touchgate(host, ["--system", "status"])
        #expect(!after.stdout.contains("tgtest-bob"), "\(after)")
    }

    @Test func withoutAUserStatusListsEveryUserWithFailuresAndWhenEachCanTryAgain() throws {
        let host = try PAMHost()
        let empty = try touchgate(host, ["--system", "status"])
        #expect(empty.status == 0 && empty.stdout.contains("no user has a failure counted or a lockdown"), "\(empty)")
        // tgtest-alice waits 60 s after one wrong password; tgtest-bob has nothing counted and is not listed.
        let delays = try touchgate(host, ["--system", "config", "set", "passcode-delays", "0,60", "--user", "tgtest-alice"])
        #expect(delays.status == 0, "\(delays)")
        _ = try host.run(["pamtester", "tgtest", PAMHost.user, "authenticate"], input: "wrong\n")
        let listing = try touchgate(host, ["--system", "--json", "status"])
        JSONContractTests.check("status", listing)
        let users = try #require(listing.json?["users"] as? [[String: Any]], "\(listing)")
        #expect(users.count == 1, "\(listing)")
        #expect(users.first?["user"] as? String == "tgtest-alice")
        #expect(users.first?["passcodeFailures"] as? Int == 1)
        let wait = try #require(users.first?["retryAfterSeconds"] as? Int, "\(listing)")
        #expect((1...60).contains(wait), "\(listing)")
        #expect((users.first?["retryAt"] as? String)?.hasSuffix("Z") == true, "\(listing)")
        #expect(listing.json?["user"] == nil && listing.json?["enabled"] == nil, "\(listing)")
        let text = try touchgate(host, ["--system", "status"])
        #expect(text.status == 0, "\(text)")
        let row = try #require(text.stdout.split(separator: "\n").first { $0.hasPrefix("tgtest-alice ") }, "\(text)")
        #expect(row.contains(" in ") && row.contains(" s ("), "\(text)")
        #expect(!text.stdout.contains("tgtest-bob"), "\(text)")
    }

    @Test func theLedgersStatusShowsNoLockEnrollmentSessionsOrWatcher() throws {
        let host = try PAMHost()
        let status = try touchgate(host, ["--system", "--json", "status", "--user", "tgtest-alice"])
        JSONContractTests.check("status", status)
        for key in ["enabled", "enrolled", "domainState", "sessions", "watcher"] {
            #expect(status.json?[key] == nil, "\(key): \(status)")
        }
        let text = try touchgate(host, ["--system", "status", "--user", "tgtest-alice"])
        #expect(text.status == 0, "\(text)")
        for field in ["lock:", "enrolled:", "watcher:", "session "] {
            #expect(!text.stdout.contains(field), "\(field): \(text)")
        }
        #expect(text.stdout.contains("passcode failures:"), "\(text)")
    }

    @Test func anUnknownUserIsAnErrorNotARowOfZeros() throws {
        let host = try PAMHost()
        for arguments in [["status"], ["reset"], ["config", "get"], ["config", "set", "grace-seconds", "0"]] {
            let result = try touchgate(host, ["--system"] + arguments + ["--user", "nosuchuser"])
            #expect(result.status == 65, "\(arguments): \(result)")
            #expect(result.stderr == "touchgate: unknown user 'nosuchuser': no such account, and the ledger holds nothing of them\n",
                    "\(arguments): \(result)")
        }
        #expect(try host.ledger("SELECT count(*) FROM users WHERE name = 'nosuchuser'") == "0")
        // A name the ledger holds (an account since removed) is still the administrator's to see.
        _ = try host.ledger("INSERT INTO users (name, passcode_failures) VALUES ('gone', 3)")
        let gone = try touchgate(host, ["--system", "--json", "status", "--user", "gone"])
        #expect(gone.status == 0 && gone.json?["passcodeFailures"] as? Int == 3, "\(gone)")
    }

    @Test func anAdministratorsResetNamesWhoRanIt() throws {
        let host = try PAMHost()
        _ = try host.run(["pamtester", "tgtest", PAMHost.user, "authenticate"], input: "wrong\n")
        // As sudo leaves it: the login uid of who logged in (tgtest-alice), SUDO_USER.
        let reset = try host.script("""
            echo \(PAMHost.uid) > /proc/self/loginuid || exit 99
            exec /usr/bin/env -i PATH=/usr/bin:/bin HOME=\(host.path)/roothome SUDO_USER=tgtest-alice \(TestEnvironment.binary) --system reset --user tgtest-alice
            """)
        #expect(reset.status == 0, "\(reset)")
        let log = try touchgate(host, ["--system", "--json", "log"])
        let entries = try #require(log.json?["entries"] as? [[String: Any]], "\(log)")
        let entry = try #require(entries.last { $0["policy"] as? String == "reset" }, "\(log)")
        let change = try #require(entry["change"] as? [String: Any], "\(log)")
        #expect(change["by"] as? String == "root (login uid \(PAMHost.uid) tgtest-alice, SUDO_USER tgtest-alice)", "\(log)")
        #expect(change["key"] as? String == "counters" && change["old"] as? String == "biometric-failures=0 passcode-failures=1", "\(log)")
    }

    // MARK: - /etc/touchgate.conf

    @Test func aValueWeakerThanTheSystemPolicyIsRefusedNamingTheFileAndTheKey() throws {
        let host = try PAMHost()
        try host.systemPolicy("# the administrator's limits\nmax-biometric-failures = 3\ngrace-seconds = 60\n")
        let weaker = try touchgate(host, ["--system", "config", "set", "max-biometric-failures", "4", "--user", "tgtest-alice"])
        #expect(weaker.status == 65, "\(weaker)")
        #expect(weaker.stderr == "touchgate: /etc/touchgate.conf: max-biometric-failures = 3 is the weakest allowed; '4' is weaker and refused\n",
                "\(weaker)")
        let stricter = try touchgate(host, ["--system", "config", "set", "max-biometric-failures", "2", "--user", "tgtest-alice"])
        #expect(stricter.status == 0, "\(stricter)")
        // A user's own store too.
        let own = try touchgate(host, ["config", "set", "grace-seconds", "61"], asUser: true, home: host.home("tgtest-alice"))
        #expect(own.status == 65 && own.stderr.contains("/etc/touchgate.conf: grace-seconds = 60"), "\(own)")
        let allowed = try touchgate(host, ["config", "set", "grace-seconds", "60"], asUser: true, home: host.home("tgtest-alice"))
        #expect(allowed.status == 0, "\(allowed)")
    }

    @Test func aStoredValueWeakerThanTheFileGivesWayToItAndSaysSo() throws {
        let host = try PAMHost()
        let before = try touchgate(host, ["config", "set", "grace-seconds", "600"], asUser: true, home: host.home("tgtest-alice"))
        #expect(before.status == 0, "\(before)")
        try host.systemPolicy("grace-seconds = 60\n")
        let get = try touchgate(host, ["config", "get"], asUser: true, home: host.home("tgtest-alice"))
        #expect(get.status == 0 && get.stdout.contains("\ngrace-seconds=60\n"), "\(get)")
        #expect(get.stdout.contains("# grace-seconds=600 is stored, weaker than /etc/touchgate.conf allows: 60 is in effect"), "\(get)")
        let json = try touchgate(host, ["--json", "status"], asUser: true, home: host.home("tgtest-alice"))
        JSONContractTests.check("status", json)
        let note = try #require(json.json?["systemPolicy"] as? [String: Any], "\(json)")
        #expect(note["file"] as? String == "/etc/touchgate.conf")
        #expect((note["overridden"] as? [String: Any])?["grace-seconds"] as? Int == 600, "\(json)")
        let getJSON = try touchgate(host, ["--json", "config", "get"], asUser: true, home: host.home("tgtest-alice"))
        JSONContractTests.check("config get", getJSON)
        #expect(getJSON.json?["grace-seconds"] as? Int == 60, "\(getJSON)")
    }

    @Test func theLedgerHonoursTheFile() throws {
        let host = try PAMHost()
        // No wait after one wrong password by default; the file asks for 60 s.
        try host.systemPolicy("passcode-delays = 0,60\n")
        let first = try host.run(["pamtester", "tgtest", PAMHost.user, "authenticate"], input: "wrong\n")
        #expect(first.status != 0, "\(first)")
        #expect(host.calls("passcode").count == 1)
        let second = try host.run(["pamtester", "tgtest", PAMHost.user, "authenticate"], input: PAMHost.password + "\n")
        #expect(second.status != 0, "the helper waits as the file says: \(second)")
        #expect(host.calls("passcode").count == 1, "the throttled try never reached PAM")
        let status = try touchgate(host, ["--system", "--json", "status", "--user", "tgtest-alice"])
        #expect((1...60).contains(status.json?["retryAfterSeconds"] as? Int ?? 0), "\(status)")
    }

    @Test(arguments: ["not root's", "group-writable", "other-writable", "malformed", "unreadable"])
    func aFileThatCannotBeUsedFailsClosedWithOneLineNamingIt(case name: String) throws {
        let host = try PAMHost()
        var expected: String
        switch name {
        case "not root's":
            try host.systemPolicy("grace-seconds = 60\n", owner: uid_t(PAMHost.uid))
            expected = "is not owned by root (owner uid \(PAMHost.uid))"
        case "group-writable":
            try host.systemPolicy("grace-seconds = 60\n", mode: 0o664)
            expected = "is writable by its group or by others (mode 664)"
        case "other-writable":
            try host.systemPolicy("grace-seconds = 60\n", mode: 0o646)
            expected = "is writable by its group or by others (mode 646)"
        case "malformed":
            try host.systemPolicy("grace-seconds = 60\ngrace-seconds: 30\n")
            expected = "line 2: expected 'key = value', found 'grace-seconds: 30'"
        default:
            try host.systemPolicy("grace-seconds = 60\n", mode: 0o600)
            expected = "cannot be read: Permission denied"
        }
        let line = "touchgate: system policy /etc/touchgate.conf: \(expected); until it is fixed no setting is weaker than its default\n"
        // Root cannot be kept from reading: the unreadable file is tried by tgtest-alice.
        let asUser = name == "unreadable"
        let home = asUser ? host.home("tgtest-alice") : nil
        for arguments in [["status"], ["config", "get"], ["config", "set", "grace-seconds", "0"]] {
            let result = try touchgate(host, (asUser ? [] : ["--system", "--user", "tgtest-alice"]) + arguments, asUser: asUser, home: home)
            #expect(result.status == 74, "\(arguments): \(result)")
            #expect(result.stderr == line, "\(arguments): \(result)")
            #expect(result.stdout.isEmpty, "\(arguments): \(result)")
        }
        // The other commands say it and go on under the defaults.
        let log = try touchgate(host, (asUser ? [] : ["--system"]) + ["log"], asUser: asUser, home: home)
        #expect(log.status == 0 && log.stderr == line, "\(log)")
    }

    /// A malformed file fails closed for the PAM module's helper too: tgtest-alice's ledger setting of no
    /// waits at all gives way to the default waits (the sixth try after five wrong ones waits).
    @Test func aMalformedFileHoldsTheLedgerToTheDefaults() throws {
        let host = try PAMHost()
        let none = try touchgate(host, ["--system", "config", "set", "passcode-delays", "0", "--user", "tgtest-alice"])
        #expect(none.status == 0, "\(none)")
        try host.systemPolicy("passcode-delays 0\n")
        for _ in 0..<5 {
            _ = try host.run(["pamtester", "tgtest", PAMHost.user, "authenticate"], input: "wrong\n")
        }
        #expect(host.calls("passcode").count == 5)
        let sixth = try host.run(["pamtester", "tgtest", PAMHost.user, "authenticate"], input: PAMHost.password + "\n")
        #expect(sixth.status != 0, "\(sixth)")
        #expect(host.calls("passcode").count == 5, "the default wait after five failures held the sixth try back")
    }
}
