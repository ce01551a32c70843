import Foundation
import Testing

/// The schema the binary creates is exactly `migrations/*.sql` applied in order, and it is carried
/// inside the binary (no resource files beside it).
@Suite struct CoreMigrationSchemaTests {
    static let schemaQuery = """
        SELECT type, name, tbl_name, sql FROM sqlite_master
        WHERE name NOT LIKE 'sqlite_%' AND name <> 'touchgate_migrations' ORDER BY type, name
        """

    /// `migrations/NNNN_name.sql`, in version order.
    static func migrationFiles() throws -> [(version: Int, name: String, url: URL)] {
        let directory = TestEnvironment.packageRoot.appendingPathComponent("migrations")
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".sql") }
            .sorted()
            .map { file in
                let stem = (file as NSString).deletingPathExtension
                let parts = stem.split(separator: "_", maxSplits: 1)
                guard parts.count == 2, let version = Int(parts[0]) else { throw TestFailure("bad migration name \(file)") }
                return (version, String(parts[1]), directory.appendingPathComponent(file))
            }
    }

    @Test func binarySchemaMatchesTheMigrationFiles() throws {
        let world = try TestEnvironment()
        let files = try Self.migrationFiles()
        #expect(!files.isEmpty)

        let reference = world.directory.appendingPathComponent("reference.sqlite").path
        for file in files {
            let sql = try String(contentsOf: file.url, encoding: .utf8)
            try world.sqliteScript(sql, path: reference)
        }
        let expected = try world.sqlite(Self.schemaQuery, path: reference)
        #expect(!expected.isEmpty)

        let status = try world.statusJSON()
        #expect(status["schemaVersion"] as? Int == files.last?.version)
        let actual = try world.sqlite(Self.schemaQuery)
        #expect(actual == expected)

        let recorded = try world.sqlite("SELECT version || ' ' || name FROM touchgate_migrations ORDER BY version")
        #expect(recorded == files.map { "\($0.version) \($0.name)" }.joined(separator: "\n"))
        #expect(try world.sqlite("PRAGMA user_version") == String(files.last!.version))
        #expect(try world.sqlite("PRAGMA journal_mode") == "wal")
        #expect(try world.sqlite("PRAGMA integrity_check") == "ok")

        // A second open migrates nothing again.
        _ = try world.statusJSON()
        #expect(try world.sqlite("SELECT count(*) FROM touchgate_migrations") == String(files.count))
    }

    @Test func storeIsCreatedPrivate() throws {
        let world = try TestEnvironment()
        _ = try world.statusJSON()
        let file = try FileManager.default.attributesOfItem(atPath: world.storePath)
        #expect((file[.posixPermissions] as? Int).map { $0 & 0o077 } == 0)
        let directory = try FileManager.default.attributesOfItem(atPath: (world.storePath as NSString).deletingLastPathComponent)
        #expect((directory[.posixPermissions] as? Int) == 0o700)
    }

    @Test func olderStoreIsMigratedForward() throws {
        let world = try TestEnvironment()
        let files = try Self.migrationFiles()
        guard let first = files.first else { throw TestFailure("no migrations") }
        // A store that only had the first migration, as the binary that shipped it recorded it.
        let sql = try String(contentsOf: first.url, encoding: .utf8)
        let directory = (world.storePath as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try world.sqliteScript(sql + """
            ;CREATE TABLE IF NOT EXISTS touchgate_migrations (
                version    INTEGER PRIMARY KEY NOT NULL,
                name       TEXT NOT NULL,
                applied_at REAL NOT NULL
            );
            INSERT INTO touchgate_migrations VALUES (\(first.version), '\(first.name)', 0);
            INSERT INTO users (name, enabled) VALUES ('alice', 1);
            PRAGMA user_version = \(first.version);
            """)
        #expect(chmod(world.storePath, 0o600) == 0)
        let status = try world.statusJSON()
        #expect(status["schemaVersion"] as? Int == files.last?.version)
        #expect(status["enabled"] as? Bool == true, "data survives the migration")

        let reference = world.directory.appendingPathComponent("reference.sqlite").path
        for file in files { try world.sqliteScript(try String(contentsOf: file.url, encoding: .utf8), path: reference) }
        #expect(try world.sqlite(Self.schemaQuery) == (try world.sqlite(Self.schemaQuery, path: reference)))
    }

    @Test func binaryWorksCopiedAloneToAnotherDirectory() throws {
        let world = try TestEnvironment()
        let alone = world.directory.appendingPathComponent("elsewhere/bin")
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
        let copy = alone.appendingPathComponent("touchgate").path
        try TestEnvironment.copyExecutable(TestEnvironment.binary, to: copy)
        #expect(try FileManager.default.contentsOfDirectory(atPath: alone.path) == ["touchgate"])

        let status = try TestEnvironment.execute(copy, ["--json", "status"], environment: world.environment)
        #expect(status.status == 0, "\(status)")
        #expect(status.json?["schemaVersion"] as? Int == (try Self.migrationFiles().last?.version))
        let enable = try TestEnvironment.execute(copy, ["-S", "--json", "enable"], input: "alice-passcode\n",
                                                 environment: world.environment)
        CoreExpect.outcome(enable, "success", policy: "device-owner")
        #expect(try world.sqlite("SELECT count(*) FROM sqlite_master WHERE name = 'sessions'") == "1")
    }
}
