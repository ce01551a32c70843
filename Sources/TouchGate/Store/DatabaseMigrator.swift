/// One schema step, as written in `migrations/NNNN_name.sql`.
struct EmbeddedMigration: Sendable, Hashable {
    let version: Int
    let name: String
    let sql: String
}

/// Brings a store's schema up to date, one named migration at a time.
///
/// Modeled on GRDB's `DatabaseMigrator`: migrations are ordered by version, each runs in its own
/// transaction together with the row that records it in `touchgate_migrations`, and a database
/// that records a version this binary does not know is refused rather than touched.
struct DatabaseMigrator: Sendable {
    /// The migrations this binary carries, from `migrations/` at build time.
    static let embedded = DatabaseMigrator(migrations: embeddedMigrations)

    let migrations: [EmbeddedMigration]

    init(migrations: [EmbeddedMigration]) {
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// The version a fully migrated database has.
    var latestVersion: Int { migrations.last?.version ?? 0 }

    /// A migrator that stops after `version`, for building databases of an older schema.
    func prefix(through version: Int) -> DatabaseMigrator {
        DatabaseMigrator(migrations: migrations.filter { $0.version <= version })
    }

    enum Failure: Error, Equatable {
        /// The database was written by a newer touchgate.
        case newerSchema(found: Int, known: Int)
        case database(DatabaseError)
    }

    /// Applies every migration the database has not recorded yet, and returns the resulting version.
    @discardableResult
    func migrate(_ database: Database) throws(Failure) -> Int {
        do {
            return try migrateUnchecked(database)
        } catch let failure as Failure {
            throw failure
        } catch let error as DatabaseError {
            throw .database(error)
        } catch {
            throw .database(DatabaseError(resultCode: 1, message: "\(error)"))
        }
    }

    private func migrateUnchecked(_ database: Database) throws -> Int {
        // The header field is the cheap check that lets an up-to-date store skip everything else.
        let headerVersion = try database.scalar("PRAGMA user_version")?.int ?? 0
        if headerVersion > latestVersion {
            throw Failure.newerSchema(found: headerVersion, known: latestVersion)
        }
        if headerVersion == latestVersion, latestVersion > 0 { return headerVersion }
        for migration in migrations {
            try database.transaction(.immediate) {
                try database.execute("""
                    CREATE TABLE IF NOT EXISTS touchgate_migrations (
                        version    INTEGER PRIMARY KEY NOT NULL,
                        name       TEXT NOT NULL,
                        applied_at REAL NOT NULL
                    )
                    """)
                let recorded = try database.scalar("SELECT max(version) FROM touchgate_migrations")?.int ?? 0
                if recorded > latestVersion {
                    throw Failure.newerSchema(found: recorded, known: latestVersion)
                }
                // Another process may have applied it between the header check and this transaction.
                guard try database.scalar(
                    "SELECT 1 FROM touchgate_migrations WHERE version = ?", .integer(Int64(migration.version))
                ) == nil else { return }
                try database.execute(migration.sql)
                try database.run(
                    "INSERT INTO touchgate_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    .integer(Int64(migration.version)), .text(migration.name), .real(WallClock().now))
                try database.execute("PRAGMA user_version = \(migration.version)")
            }
        }
        return try database.scalar("PRAGMA user_version")?.int ?? 0
    }
}
