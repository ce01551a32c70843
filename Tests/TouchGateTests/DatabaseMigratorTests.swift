import Testing
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGateStore

@Suite(.removesItsFiles) struct DatabaseMigratorTests {
    let migrator = DatabaseMigrator.embedded

    @Test func embeddedMigrationsAreNumberedFromOneWithoutGaps() {
        #expect(!migrator.migrations.isEmpty)
        #expect(migrator.migrations.map(\.version) == Array(1...migrator.migrations.count))
        #expect(migrator.migrations.allSatisfy { !$0.name.isEmpty && !$0.sql.isEmpty })
    }

    @Test func aFreshDatabaseGetsEveryMigrationRecorded() throws {
        let database = try Database(path: FilePath(temporaryStoreFile()), create: true)
        #expect(try migrator.migrate(database) == migrator.latestVersion)
        let recorded = try database.rows("SELECT version, name FROM touchgate_migrations ORDER BY version")
        #expect(recorded.map { $0[0].int } == migrator.migrations.map(\.version))
        #expect(recorded.map { $0[1].string } == migrator.migrations.map(\.name))
        #expect(try database.scalar("PRAGMA user_version")?.int == migrator.latestVersion)
    }

    @Test func anOlderDatabaseIsUpgradedKeepingItsData() throws {
        let path = temporaryStoreFile()
        do {
            let database = try Database(path: FilePath(path), create: true)
            #expect(try migrator.prefix(through: 1).migrate(database) == 1)
            try database.run("INSERT INTO users (name, enabled, biometric_failures) VALUES ('alice', 1, 3)")
            #expect(try database.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'sessions'")?.int == 0)
        }
        let database = try Database(path: FilePath(path), create: false)
        #expect(try migrator.migrate(database) == migrator.latestVersion)
        #expect(try database.scalar("SELECT biometric_failures FROM users WHERE name = 'alice'")?.int == 3)
        #expect(try database.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'sessions'")?.int == 1)
    }

    /// The schema the build embedded (the plugin applied `migrations/` to an in-memory database)
    /// is the one this migrator makes, the table it records migrations in included.
    @Test func theEmbeddedSchemaIsWhatTheMigratorMakes() throws {
        let reference = try migrator.referenceSchema()
        #expect(reference.count == DatabaseMigrator.embeddedSchema.count)
        for object in reference {
            #expect(DatabaseMigrator.embeddedSchema.contains(object), "\(object.type) \(object.name)")
        }
        let database = try Database(path: FilePath(temporaryStoreFile()), create: true)
        try migrator.migrate(database)
        #expect(try DatabaseMigrator.schema(of: database, matches: DatabaseMigrator.embeddedSchema))
        try database.execute("CREATE INDEX extra ON users (enabled)")
        #expect(try !DatabaseMigrator.schema(of: database, matches: DatabaseMigrator.embeddedSchema))
    }

    @Test func upgradingCopiesTheStoreWideSettingsToEveryKnownUser() throws {
        let path = temporaryStoreFile()
        do {
            let database = try Database(path: FilePath(path), create: true)
            #expect(try migrator.prefix(through: 2).migrate(database) == 2)
            try database.execute("""
                INSERT INTO users (name, enabled) VALUES ('alice', 1), ('bob', 0);
                INSERT INTO config (key, value) VALUES ('max-biometric-failures', '3'), ('grace-seconds', '60');
                INSERT INTO sessions (id, user, state, locked, prompt_pid, updated) VALUES ('s', 'alice', 'inactive', 1, 1, 0);
                """)
        }
        let store = try Store(path: FilePath(path))
        for user in ["alice", "bob"] {
            let configuration = try store.configuration(user: user)
            #expect(configuration.maxBiometricFailures == 3, "\(user)")
            #expect(configuration.graceSeconds == 60, "\(user)")
        }
        #expect(try store.configuration(user: "carol") == Configuration(), "a user the store never knew gets the defaults")
        #expect(try store.user("alice").enabled)
        #expect(try store.storeID().count == 32)
        #expect(try store.session("s")?.promptOwner == nil, "a claim without a start time names no process for sure")
    }

    @Test func migratingTwiceChangesNothing() throws {
        let database = try Database(path: FilePath(temporaryStoreFile()), create: true)
        try migrator.migrate(database)
        try migrator.migrate(database)
        #expect(try database.scalar("SELECT count(*) FROM touchgate_migrations")?.int == migrator.migrations.count)
    }

    @Test func aNewerDatabaseIsRefusedUntouched() throws {
        let database = try Database(path: FilePath(temporaryStoreFile()), create: true)
        try migrator.migrate(database)
        try database.execute("PRAGMA user_version = \(migrator.latestVersion + 1)")
        #expect(throws: DatabaseMigrator.Failure.newerSchema(found: migrator.latestVersion + 1, known: migrator.latestVersion)) {
            try migrator.migrate(database)
        }
        #expect(try database.scalar("PRAGMA user_version")?.int == migrator.latestVersion + 1)
    }

    @Test func aNewerMigrationRecordIsRefusedEvenWithAnOldHeader() throws {
        let database = try Database(path: FilePath(temporaryStoreFile()), create: true)
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
        let database = try Database(path: FilePath(temporaryStoreFile()), create: true)
        #expect(throws: DatabaseMigrator.Failure.self) { try broken.migrate(database) }
        #expect(try database.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'half_done'")?.int == 0)
        #expect(try database.scalar("PRAGMA user_version")?.int == migrator.latestVersion)
    }

    @Test func theStoreRefusesANewerSchemaWithItsPath() throws {
        let path = temporaryStorePath()
        _ = try Store(path: FilePath(path))
        do {
            let database = try Database(path: FilePath(path), create: false)
            try database.execute("PRAGMA user_version = 42")
        }
        do {
            _ = try Store(path: FilePath(path))
            Issue.record("a newer schema was accepted")
        } catch {
            #expect(error.reason == .newerSchema(found: 42, known: migrator.latestVersion))
            #expect(error.description.contains(path))
        }
    }

    private func temporaryStoreFile() -> String {
        let path = temporaryStorePath()
        try? Store.prepareDirectory(for: FilePath(path))
        return path
    }
}
