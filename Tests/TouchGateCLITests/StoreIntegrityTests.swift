import Foundation
import Testing

/// The store the lock was set up with, and only that: its schema exactly what the migrations
/// made (item 11), its id carried by the integrations so that a store deleted, moved or
/// replaced is damage rather than "lock off" (item 9), and every directory above it safe
/// (OpenSSH's StrictModes), for relative paths too.
@Suite struct StoreIntegrityTests {
    // MARK: - Foreign schema objects (item 11)

    /// alice enrolled with the lock on and `max-biometric-failures` 5.
    static func enrolledAlice() throws -> TestEnvironment {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        return world
    }

    /// The attack: a trigger that resets the biometric counter let 30 wrong fingers reach
    /// PAM with `max-biometric-failures` 5. The store is refused instead: exit 74, no PAM call.
    @Test func aTriggerThatResetsTheCountersIsRefused() throws {
        let world = try Self.enrolledAlice()
        _ = try world.sqlite("""
            CREATE TRIGGER forget AFTER UPDATE OF biometric_failures ON users
            BEGIN UPDATE users SET biometric_failures = 0 WHERE name = NEW.name; END
            """)
        let calls = world.allCalls()
        for _ in 0..<30 {
            let result = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "wrong-finger\n")
            #expect(result.status == 74, "\(result)")
            #expect(result.json?["exitCode"] as? Int == 74, "\(result)")
            #expect(result.stderr.contains("holds a trigger 'forget' that touchgate's migrations did not make"), "\(result)")
        }
        #expect(world.allCalls() == calls, "no call reached PAM")
    }

    @Test(arguments: [
        ("table", "CREATE TABLE extra (x)", "holds a table 'extra'"),
        ("view", "CREATE VIEW extra AS SELECT name FROM users", "holds a view 'extra'"),
        ("index", "CREATE INDEX extra ON sessions (user)", "holds an index 'extra'"),
        ("changed table", "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, 'NOT NULL DEFAULT 0 CHECK (biometric_failures >= 0)', 'NOT NULL DEFAULT 0') WHERE name = 'users'", "its table 'users' differs"),
    ])
    func anyForeignSchemaObjectIsRefused(kind: String, sql: String, message: String) throws {
        let world = try Self.enrolledAlice()
        try world.gateEvents(["did-finish-launching"], session: "term-1")
        try world.sqliteScript(sql + ";")
        let calls = world.allCalls()
        let biometric = world.calls("touchgate-biometric")
        for arguments in [["-S", "auth"], ["status"], ["config", "get"], ["event", "did-become-active", "--session", "term-1"]] {
            let result = try world.run(arguments, input: "alice-finger\nalice-passcode\n")
            #expect(result.status == 74, "\(kind): \(arguments): \(result)")
            #expect(result.stderrLines.count == 1 && result.stderr.contains(message), "\(kind): \(result)")
        }
        #expect(world.allCalls() == calls, "no call reached PAM")
        // The gate falls back to the passcode alone, as for a corrupt store.
        let gate = try world.run(["-S", "gate", "--session", "term-1"], input: "alice-finger\n")
        #expect(gate.status == 2, "\(kind): the finger does not open it: \(gate)")
        #expect(world.calls("touchgate-biometric") == biometric, "the biometric factor needs a store it can trust")
    }

    // MARK: - The store id (item 9)

    /// The lock on, session `term-1` launched and then unlocked (active): the fast path opens it.
    static func unlockedSession() throws -> (TestEnvironment, String) {
        let world = try Self.enrolledAlice()
        try world.gateEvents(["did-finish-launching"], session: "term-1")
        let unlock = try world.run(["-S", "gate", "--session", "term-1"], input: "alice-finger\n")
        guard unlock.status == 0 else { throw TestFailure("unlock failed: \(unlock)") }
        let id = try #require(try world.statusJSON()["storeId"] as? String)
        return (world, id)
    }

    @Test func statusShowsAStableRandomStoreIDThatTheSnippetsCarry() throws {
        let world = try TestEnvironment()
        let first = try #require(try world.statusJSON()["storeId"] as? String)
        #expect(first.count == 32 && first.allSatisfy(\.isHexDigit), "\(first)")
        #expect(try world.statusJSON()["storeId"] as? String == first)
        #expect(try world.run(["status"]).stdout.contains("store id:           \(first)"))
        let other = try TestEnvironment()
        #expect(try other.statusJSON()["storeId"] as? String != first)
        for arguments in [["tmux-conf"], ["shell-init", "bash"], ["shell-init", "zsh"]] {
            let snippet = try world.run(arguments)
            #expect(snippet.stdout.contains("'--store-id' '\(first)'"), "\(arguments): \(snippet)")
        }
    }

    /// Removing or renaming the store (or its directory) under an integration that carries the
    /// id: the gate asks for the passcode (the offline gate, as for a corrupt store) and creates
    /// nothing; no other command runs on another store.
    @Test(arguments: ["remove the store", "rename its directory", "replace it"])
    func aStoreThatWentAwayNeverOpensASession(how: String) throws {
        let (world, id) = try Self.unlockedSession()
        let directory = (world.storePath as NSString).deletingLastPathComponent
        switch how {
        case "remove the store":
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: world.storePath + suffix) }
        case "rename its directory":
            try FileManager.default.moveItem(atPath: directory, toPath: directory + ".moved")
        default:
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: world.storePath + suffix) }
            #expect(try world.statusJSON()["enabled"] as? Bool == false, "a new store, with the lock off")
        }
        // As the snippets run it: with the id. The fast path does not open it without a secret.
        let detached = try GateTests.runDetached(world, ["--store-id", id, "gate", "--session", "term-1"])
        #expect(detached.status == 11, "\(detached)")
        let nothing = try world.run(["--store-id", id, "-S", "gate", "--session", "term-1"], input: "alice-finger\n")
        #expect(nothing.status == 2, "\(nothing)")
        #expect(nothing.stderr.contains("store cannot be read"), "\(nothing)")
        let passcode = world.calls("touchgate")
        let right = try world.run(["--store-id", id, "-S", "gate", "--session", "term-1"], input: "alice-passcode\n")
        #expect(right.status == 0, "the passcode still opens it: \(right)")
        #expect(world.calls("touchgate") == passcode + 1)

        for arguments in [["status"], ["event", "did-become-active", "--session", "term-1"], ["config", "get"], ["-S", "auth"]] {
            let result = try world.run(["--store-id", id, "--json"] + arguments, input: "alice-passcode\n")
            #expect(result.status == 74, "\(arguments): \(result)")
            #expect(result.json?["exitCode"] as? Int == 74, "\(result)")
            #expect(result.stderr.contains(how == "replace it" ? "it was replaced" : "does not exist"), "\(result)")
            #expect(result.stderr.contains(id), "\(result)")
        }
        if how != "replace it" {
            #expect(!FileManager.default.fileExists(atPath: world.storePath), "no store was made in its place")
        }
    }

    @Test func aMalformedStoreIDIsABadValue() throws {
        let world = try TestEnvironment()
        for id in ["", "XYZ", String(repeating: "a", count: 65), "ab cd"] {
            let result = try world.run(["--store-id", id, "--json", "status"])
            #expect(result.status == 65, "'\(id)': \(result)")
            #expect(result.json?["exitCode"] as? Int == 65, "'\(id)': \(result)")
        }
    }

    // MARK: - Every directory up to the root (item 9)

    @Test func aGroupWritableDirectoryAboveTheStoreIsRefused() throws {
        let world = try TestEnvironment()
        let shared = world.directory.appendingPathComponent("shared").path
        world.storePath = shared + "/private/state/touchgate.sqlite"
        try FileManager.default.createDirectory(atPath: shared + "/private", withIntermediateDirectories: true)
        #expect(chmod(shared + "/private", 0o700) == 0)
        #expect(chmod(shared, 0o775) == 0)
        let result = try world.run(["--json", "status"])
        #expect(result.status == 74, "\(result)")
        #expect(result.stderr.contains("directory \(shared) is writable by other users (mode 775)"), "\(result)")
        #expect(result.json?["exitCode"] as? Int == 74, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: world.storePath))

        // Sticky, like /tmp: no one can replace another user's entry there.
        #expect(chmod(shared, 0o1777) == 0)
        #expect(try world.run(["status"]).status == 0)
    }

    @Test func aDirectoryAboveTheStoreOwnedByAnotherUserIsRefused() throws {
        let world = try TestEnvironment()
        let foreign = world.directory.appendingPathComponent("foreign").path
        world.storePath = foreign + "/mine/touchgate.sqlite"
        try FileManager.default.createDirectory(atPath: foreign + "/mine", withIntermediateDirectories: true)
        #expect(chmod(foreign + "/mine", 0o700) == 0)
        try TestEnvironment.tool("/bin/chown", ["nobody", foreign])
        let result = try world.run(["status"])
        #expect(result.status == 74, "\(result)")
        let nobody = try #require(getpwnam("nobody")).pointee.pw_uid
        #expect(result.stderr.contains("directory \(foreign) belongs to user \(nobody), not to you or root"), "\(result)")
    }

    /// A relative store path is checked from the current directory up.
    @Test func aRelativeStorePathInAGroupWritableDirectoryIsRefused() throws {
        let world = try TestEnvironment()
        let work = world.directory.appendingPathComponent("work").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        #expect(chmod(work, 0o775) == 0)
        let inWork = ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", work]
        let result = try world.runRaw(["--store", "x.sqlite", "status"], prefix: inWork)
        #expect(result.status == 74, "\(result)")
        #expect(result.stderr.contains("store x.sqlite: directory \(work) is writable by other users"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: work + "/x.sqlite"))

        #expect(chmod(work, 0o700) == 0)
        let fine = try world.runRaw(["--store", "x.sqlite", "status"], prefix: inWork)
        #expect(fine.status == 0, "\(fine)")
        #expect(FileManager.default.fileExists(atPath: work + "/x.sqlite"))
    }
}
