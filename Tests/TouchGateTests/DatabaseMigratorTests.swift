import Testing
@testable import TouchGate

@Suite struct DatabaseMigratorTests {
    let migrator = DatabaseMigrator.embedded

    @Test func embeddedMigrationsAreNumberedFromOneWithoutGaps() {
        #expect(!migrator.migrations.isEmpty)
        #expect(migrator.migrations.map(\.version) == Array(1...migrator.migrations.count))
        #expect(migrator.migrations.allSatisfy { !$0.name.isEmpty && !$0.sql.isEmpty })
    }

    @Test func aFreshDatabaseGetsEveryMigrationRecorded() throws {
        let database = try Database(path: temporaryStoreFile(), create: true)
        #expect(try migrator.migrate(database) == migrator.latestVersion)
        let recorded = try database.rows("SELECT version, name FROM touchgate_migrations ORDER BY version")
        #expect(recorded.map { $0[0].int } == migrator.migrations.map(\.version))
        #expect(recorded.map { $0[1].string } == migrator.migrations.map(\.name))
        #expect(try database.scalar("PRAGMA user_version")?.int == migrator.latestVersion)
    }

    @Test func anOlderDatabaseIsUpgradedKeepingItsData() throws {
        let path = temporaryStoreFile()
        do {
            let database = try Database(path: path, create: true)
            #expect(try migrator.prefix(through: 1).migrate(database) == 1)
            try database.run("INSERT INTO users (name, enabled, biometric_failures) VALUES ('alice', 1, 3)")
            #expect(try database.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'sessions'")?.int == 0)
        }
        let database = try Database(path: path, create: false)
        #expect(try migrator.migrate(database) == migrator.latestVersion)
        #expect(try database.scalar("SELECT biometric_failures FROM users WHERE name = 'alice'")?.int == 3)
        #expect(try database.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'sessions'")?.int == 1)
    }

    @Test func migratingTwiceChangesNothing() throws {
        let database = try Database(path: temporaryStoreFile(), create: true)
        try migrator.migrate(database)
        try migrator.migrate(database)
        #expect(try database.scalar("SELECT count(*) FROM touchgate_migrations")?.int == migrator.migrations.count)
    }

    @Test func aNewerDatabaseIsRefusedUntouched() throws {
        let database = try Database(path: temporaryStoreFile(), create: true)
        try migrator.migrate(database)
        try database.execute("PRAGMA user_version = \(migrator.latestVersion + 1)")
        #expect(throws: DatabaseMigrator.Failure.newerSchema(found: migrator.latestVersion + 1, known: migrator.latestVersion)) {
            try migrator.migrate(database)
        }
        #expect(try database.scalar("PRAGMA user_version")?.int == migrator.latestVersion + 1)
    }

    @Test func aNewerMigrationRecordIsRefusedEvenWithAnOldHeader() throws {
        let database = try Database(path: temporaryStoreFile(), create: true)
        try migrator.prefix(through: 1).migrate(database)
        try database.run("INSERT INTO touchgate_migrations (version, name, applied_at) VALUES (99, 'future', 0)")
        #expect(throws: DatabaseMigrator.Failure.newerSchema(found: 99, known: migrator.latestVersion)) {
            try migrator.migrate(database)
        }
    }

    @Test func aFailingMigrationLeavesNoPartialSchema() throws {
        let broken = DatabaseMigrator(migrations: migrator.migrations + [
            EmbeddedMigration(version: migrator.latestVersion + 1, name: "broken",
                              sql: "CREATE TABLE half_done (x); THIS IS NOT SQL;"),
        ])
        let database = try Database(path: temporaryStoreFile(), create: true)
        #expect(throws: DatabaseMigrator.Failure.self) { try broken.migrate(database) }
        #expect(try database.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'half_done'")?.int == 0)
        #expect(try database.scalar("PRAGMA user_version")?.int == migrator.latestVersion)
    }

    @Test func theStoreRefusesANewerSchemaWithItsPath() throws {
        let path = temporaryStorePath()
        _ = try Store(path: path)
        do {
            let database = try Database(path: path, create: false)
            try database.execute("PRAGMA user_version = 42")
        }
        do {
            _ = try Store(path: path)
            Issue.record("a newer schema was accepted")
        } catch {
            #expect(error.reason == .newerSchema(found: 42, known: migrator.latestVersion))
            #expect(error.description.contains(path))
        }
    }

    private func temporaryStoreFile() -> String {
        let path = temporaryStorePath()
        try? Store.prepareDirectory(for: path)
        return path
    }
}
