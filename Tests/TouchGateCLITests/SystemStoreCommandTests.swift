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
}
