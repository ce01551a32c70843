import Foundation
import Testing

/// A store that cannot be used: no credential is checked, exit 74 with one line naming the path,
/// and the file is left as it was.
@Suite struct CoreStoreFaultTests {
    static let stacks = ["touchgate", "touchgate-biometric"]

    /// The commands that would check a credential or read the store.
    static let commands: [([String], String?)] = [
        (["-S", "auth"], "alice-passcode\n"),
        (["-S", "auth", "--policy", "biometrics"], "alice-finger\n"),
        (["-S", "enable"], "alice-passcode\n"),
        (["-S", "enroll"], "alice-passcode\nalice-finger\n"),
        (["-S", "reset"], "alice-passcode\n"),
        (["-S", "config", "set", "reuse-seconds", "10"], "alice-passcode\n"),
        (["status"], nil),
        (["can-evaluate"], nil),
        (["log"], nil),
        (["config", "get"], nil),
    ]

    private func expectRefused(_ world: TestEnvironment, detail: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let bytes = world.storeDataBytes()
        for (arguments, input) in Self.commands {
            let result = try world.run(arguments, input: input)
            #expect(result.status == 74, "\(arguments): \(result)", sourceLocation: sourceLocation)
            #expect(result.stderrLines.count == 1, "one line: \(result)", sourceLocation: sourceLocation)
            #expect(result.stderr.contains(world.storePath), "names the store: \(result)", sourceLocation: sourceLocation)
            #expect(result.stderr.contains(detail), "\(result)", sourceLocation: sourceLocation)
            #expect(!result.stderr.contains("Password"), "nothing was asked: \(result)", sourceLocation: sourceLocation)
        }
        let json = try world.run(["--json", "-S", "auth"], input: "alice-passcode\n")
        #expect(json.status == 74, "\(json)", sourceLocation: sourceLocation)
        #expect(json.json?["exitCode"] as? Int == 74, "\(json)", sourceLocation: sourceLocation)
        #expect((json.json?["error"] as? String)?.contains(world.storePath) == true, "\(json)", sourceLocation: sourceLocation)
        for stack in Self.stacks {
            #expect(world.calls(stack) == 0, "no PAM call to \(stack)", sourceLocation: sourceLocation)
        }
        #expect(world.storeDataBytes() == bytes, "the store file and its log are untouched", sourceLocation: sourceLocation)
    }

    /// A private store file holding `contents` in a private directory, where no store was yet.
    private func placeStoreFile(_ world: TestEnvironment, _ contents: Data) throws {
        let directory = (world.storePath as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        #expect(FileManager.default.createFile(atPath: world.storePath, contents: contents,
                                               attributes: [.posixPermissions: 0o600]))
    }

    @Test func garbageFileIsRefused() throws {
        let world = try TestEnvironment()
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try placeStoreFile(world, garbage)
        try expectRefused(world, detail: "not a database")
        #expect(FileManager.default.contents(atPath: world.storePath) == garbage)
    }

    @Test func textFileIsRefused() throws {
        let world = try TestEnvironment()
        let text = Data(String(repeating: "this is not an SQLite database\n", count: 200).utf8)
        try placeStoreFile(world, text)
        try expectRefused(world, detail: "not a database")
        #expect(FileManager.default.contents(atPath: world.storePath) == text)
    }

    @Test func newerSchemaIsRefused() throws {
        let world = try TestEnvironment()
        let status = try world.statusJSON()
        #expect(status["schemaVersion"] as? Int ?? 0 > 0)
        _ = try world.sqlite("PRAGMA user_version = 99")
        #expect(try world.sqlite("PRAGMA user_version") == "99")
        let main = FileManager.default.contents(atPath: world.storePath)
        try expectRefused(world, detail: "newer")
        #expect(FileManager.default.contents(atPath: world.storePath) == main)
        #expect(try world.sqlite("PRAGMA user_version") == "99")
        #expect(try world.sqlite("SELECT max(version) FROM touchgate_migrations") == String(status["schemaVersion"] as? Int ?? -1))
    }

    @Test func newerMigrationRecordIsRefused() throws {
        // The header says "current", but the migrations table records a version this binary lacks.
        let world = try TestEnvironment()
        let status = try world.statusJSON()
        let version = try #require(status["schemaVersion"] as? Int)
        _ = try world.sqlite("""
            INSERT INTO touchgate_migrations (version, name, applied_at) VALUES (\(version + 1), 'future', 0);
            PRAGMA user_version = \(version - 1);
            """)
        try expectRefused(world, detail: "newer")
    }

    @Test func storeWritableByOthersIsRefused() throws {
        let world = try TestEnvironment()
        _ = try world.statusJSON()
        #expect(chmod(world.storePath, 0o666) == 0)
        try expectRefused(world, detail: "chmod")
    }

    @Test func writeAheadLogOthersCanWriteIsRefused() throws {
        // touchgate keeps the log beside the store between runs; SQLite reads committed rows from it.
        let world = try TestEnvironment()
        _ = try world.statusJSON()
        #expect(FileManager.default.fileExists(atPath: world.storePath + "-wal"))
        #expect(chmod(world.storePath + "-wal", 0o646) == 0)
        try expectRefused(world, detail: "-wal file is writable by other users")
    }

    @Test func invalidStoredSettingIsRefused() throws {
        let world = try TestEnvironment()
        _ = try world.statusJSON()
        _ = try world.sqlite("INSERT INTO user_config (user, key, value) VALUES ('alice', 'max-biometric-failures', 'lots')")
        let bytes = world.storeDataBytes()
        let result = try world.run(["-S", "auth"], input: "alice-passcode\n")
        #expect(result.status == 74, "\(result)")
        #expect(result.stderrLines.count == 1, "\(result)")
        #expect(result.stderr.contains(world.storePath), "\(result)")
        #expect(world.calls("touchgate") == 0)
        #expect(world.storeDataBytes() == bytes)
    }
}
