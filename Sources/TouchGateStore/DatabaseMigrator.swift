

/// Brings a store's schema up to date, one named migration at a time.
///
/// Modeled on GRDB's `DatabaseMigrator`: migrations are ordered by version, each runs in its own
/// transaction together with the row that records it in `touchgate_migrations`, and a database
/// that records a version this binary does not know is refused rather than touched.
struct DatabaseMigrator: Sendable {
    /// The migrations this binary carries, from `migrations/` at build time.
    static let embedded = DatabaseMigrator(migrations: embeddedMigrations, builtSchema: embeddedSchema)

    let migrations: [EmbeddedMigration]
    /// The schema these migrations make, when the build computed it (``embeddedSchema``, for
    /// ``embedded``); otherwise ``referenceSchema()`` computes it.
    let builtSchema: [EmbeddedSchemaObject]?

    init(migrations: [EmbeddedMigration], builtSchema: [EmbeddedSchemaObject]? = nil) {
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.builtSchema = builtSchema
    }

    /// What `sqlite_master` holds, every object SQLite's own included, in a fixed order.
    static func schema(of database: Database) throws(DatabaseError) -> [EmbeddedSchemaObject] {
        try database.rows("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").map { row in
            EmbeddedSchemaObject(type: row[0].string ?? "", name: row[1].string ?? "", table: row[2].string ?? "",
                                 sql: row[3].string)
        }
    }

    /// True when `database`'s `sqlite_master` holds exactly the objects `expected` (type, name,
    /// table and SQL text), in any order.
    ///
    /// Compares the columns in place, without making Swift strings or arrays of them: this
    /// runs at every open, the gate's fast path included.
    static func schema(of database: Database, matches expected: [EmbeddedSchemaObject]) throws(DatabaseError) -> Bool {
        let statement = try database.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master")
        var count = 0
        while try statement.step() {
            count += 1
            // Names are unique in sqlite_master, so matching each row and the count is matching the set.
            let found = expected.contains { object in
                statement.column(1, equals: object.name) && statement.column(0, equals: object.type)
                    && statement.column(2, equals: object.table) && statement.column(3, equals: object.sql)
            }
            guard found else { return false }
        }
        return count == expected.count
    }

    /// The schema these migrations make: that of an in-memory database they were applied to.
    func referenceSchema() throws(DatabaseError) -> [EmbeddedSchemaObject] {
        let memory = try Database(path: ":memory:", create: true)
        do {
            try migrate(memory)
        } catch {
            switch error {
            case .database(let error): throw error
            case .newerSchema: throw DatabaseError(resultCode: 1, message: "\(error)")
            }
        }
        return try Self.schema(of: memory)
    }

    /// The schema ``embedded`` makes, as the build applied it to an in-memory database: a
    /// store is compared with it at every open, which migrating a database here would make
    /// several times dearer than the whole gate's fast path.
    static var embeddedSchema: [EmbeddedSchemaObject] { TouchGateStore.embeddedSchema }

    /// The table migrations are recorded in, created before each one.
    static let migrationsTableSQL = """
        CREATE TABLE IF NOT EXISTS touchgate_migrations (
            version    INTEGER PRIMARY KEY NOT NULL,
            name       TEXT NOT NULL,
            applied_at REAL NOT NULL
        )
        """

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
                try database.execute(Self.migrationsTableSQL)
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
