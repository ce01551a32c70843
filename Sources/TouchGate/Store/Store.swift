import Glibc

/// The SQLite file that holds touchgate's settings, lock state, lifecycle state and audit log.
///
/// Every method runs in its own short transaction; the ones that guard a credential check take
/// the write lock first (`BEGIN IMMEDIATE`) so that the check and the count are one step for
/// every process that shares the file.
public final class Store {
    public let path: String
    let database: Database
    let clock: any Clock

    /// How long the write-ahead log grows before a commit folds it into the file: an `auth`
    /// adds about six pages, and every process that opens the store alone reads the whole log.
    static let checkpointPages: Int32 = 32

    /// The default location: `$XDG_STATE_HOME/touchgate/touchgate.sqlite`, else `~/.local/state/touchgate/…`.
    public static func defaultPath(environment: ProcessEnvironment = .current) -> String? {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return state + "/touchgate/touchgate.sqlite"
        }
        var home = environment["HOME"]
        if home?.isEmpty ?? true, let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir {
            home = String(cString: directory)
        }
        guard let home, !home.isEmpty else { return nil }
        return home + "/.local/state/touchgate/touchgate.sqlite"
    }

    /// Opens the store at `path`, creating it (0600, in a 0700 directory) and migrating its schema.
    public convenience init(path: String, clock: any Clock = WallClock()) throws(StoreError) {
        try self.init(path: path, clock: clock, migrator: .embedded)
    }

    init(path: String, clock: any Clock, migrator: DatabaseMigrator) throws(StoreError) {
        self.path = path
        self.clock = clock
        try Self.prepareDirectory(for: path)
        try Self.createIfMissing(at: path, migrator: migrator)
        try Self.checkFile(at: path)
        do {
            database = try Database(path: path, create: false)
            try database.execute("PRAGMA synchronous = FULL")
            try database.keepWriteAheadLog(checkpointPages: Self.checkpointPages)
        } catch {
            throw StoreError(path: path, error)
        }
        try Self.migrate(database, path: path, with: migrator)
    }

    private static func migrate(_ database: Database, path: String, with migrator: DatabaseMigrator) throws(StoreError) {
        do {
            try migrator.migrate(database)
        } catch {
            switch error {
            case .newerSchema(let found, let known):
                throw StoreError(
                    path: path, reason: .newerSchema(found: found, known: known),
                    detail: "schema version \(found) is newer than this touchgate understands (\(known)); upgrade touchgate")
            case .database(let error):
                throw StoreError(path: path, error)
            }
        }
    }

    /// Creates the store's directories (0700) and refuses a directory others could write to,
    /// where they could replace the file.
    static func prepareDirectory(for path: String) throws(StoreError) {
        guard !path.isEmpty else { throw StoreError(path: path, reason: .unavailable, detail: "no store path") }
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let directory = String(path[..<slash])
        try makeDirectories(directory, path: path)
        var info = stat()
        guard stat(directory, &info) == 0 else {
            throw StoreError(path: path, reason: .unavailable, detail: "cannot read \(directory.escapedForMessage): \(systemMessage())")
        }
        // A sticky directory (like /tmp) lets no one replace another user's file.
        if info.st_mode & 0o022 != 0, info.st_mode & S_ISVTX == 0 {
            throw StoreError(path: path, reason: .insecurePermissions, detail:
                "its directory is writable by other users (mode \(String(info.st_mode & 0o777, radix: 8))); run chmod 700 on it")
        }
    }

    /// Creates a new store complete or not at all: migrated under a temporary name in the same
    /// directory, then linked into place. A store file is therefore never seen half-made, and an
    /// existing empty file can only be damage.
    static func createIfMissing(at path: String, migrator: DatabaseMigrator) throws(StoreError) {
        var info = stat()
        if stat(path, &info) == 0 { return }
        guard errno == ENOENT else { throw StoreError(path: path, reason: .unavailable, detail: systemMessage()) }
        let temporary = path + ".creating-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))"
        // The file and whatever SQLite may leave beside it.
        let temporaryFiles = ["", "-wal", "-shm", "-journal"].map { temporary + $0 }
        for file in temporaryFiles { unlink(file) }
        defer { for file in temporaryFiles { unlink(file) } }
        let descriptor = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(path: path, reason: .unavailable, detail: "cannot create: \(systemMessage())")
        }
        close(descriptor)
        // In a function of its own so the connection is closed (and the WAL folded in) before the link.
        func build() throws(StoreError) {
            let database: Database
            do {
                database = try Database(path: temporary, create: false)
                // WAL lets readers (the gate's fast path) run beside a writer; it persists in the file.
                _ = try database.scalar("PRAGMA journal_mode = WAL")
            } catch {
                throw StoreError(path: path, error)
            }
            try migrate(database, path: path, with: migrator)
        }
        try build()
        // Another process may have created the store meanwhile: then its file is the store.
        if link(temporary, path) != 0, errno != EEXIST {
            throw StoreError(path: path, reason: .unavailable, detail: "cannot create: \(systemMessage())")
        }
    }

    /// Refuses anything but a private, non-empty regular file, with private companions.
    static func checkFile(at path: String) throws(StoreError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw StoreError(path: path, reason: .unavailable, detail: systemMessage()) }
        try requirePrivateRegularFile(info, path: path, subject: "is")
        guard info.st_size > 0 else {
            throw StoreError(path: path, reason: .corrupt,
                             detail: "is empty, which touchgate never leaves a store; move it away to start a new one")
        }
        guard access(path, R_OK | W_OK) == 0 else {
            throw StoreError(path: path, reason: .unavailable, detail: "cannot read and write: \(systemMessage())")
        }
        // The write-ahead log and its index stay beside the file between runs (see
        // `Database.keepWriteAheadLog`), and SQLite reads committed rows from them: they must be
        // as private as the file itself, and its owner's.
        for suffix in ["-wal", "-shm"] {
            var companion = stat()
            guard lstat(path + suffix, &companion) == 0 else { continue }
            try requirePrivateRegularFile(companion, path: path, subject: "its \(suffix) file is")
            guard companion.st_uid == info.st_uid else {
                throw StoreError(path: path, reason: .insecurePermissions, detail:
                    "its \(suffix) file belongs to user \(companion.st_uid), not to the store's owner \(info.st_uid)")
            }
        }
    }

    /// Refuses a file of the store (`subject` names it in the message) that is not a regular
    /// file, or that group or others can write.
    private static func requirePrivateRegularFile(_ info: stat, path: String, subject: String) throws(StoreError) {
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StoreError(path: path, reason: .unavailable, detail: "\(subject) not a regular file")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw StoreError(path: path, reason: .insecurePermissions,
                             detail: "\(subject) writable by other users (mode \(String(info.st_mode & 0o777, radix: 8))); run chmod 600")
        }
    }

    private static func makeDirectories(_ directory: String, path: String) throws(StoreError) {
        var info = stat()
        if stat(directory, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw StoreError(path: path, reason: .unavailable, detail: "\(directory.escapedForMessage) is not a directory")
            }
            return
        }
        if let slash = directory.lastIndex(of: "/"), slash != directory.startIndex {
            try makeDirectories(String(directory[..<slash]), path: path)
        }
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw StoreError(path: path, reason: .unavailable,
                             detail: "cannot create \(directory.escapedForMessage): \(systemMessage())")
        }
    }

    /// Runs `body`, turning any database failure into a ``StoreError`` naming this store.
    func perform<Result>(_ body: () throws -> Result) throws(StoreError) -> Result {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw StoreError(path: path, error)
        } catch let error as Configuration.InvalidValue {
            throw StoreError(path: path, reason: .invalidSetting, detail: "stored \(error)")
        } catch {
            throw StoreError(path: path, reason: .unavailable, detail: "\(error)")
        }
    }

    /// The schema version recorded in the file.
    public func schemaVersion() throws(StoreError) -> Int {
        try perform { try database.scalar("PRAGMA user_version")?.int ?? 0 }
    }
}

/// `strerror(errno)` as a Swift string.
func systemMessage(_ code: Int32 = errno) -> String {
    String(cString: strerror(code))
}
