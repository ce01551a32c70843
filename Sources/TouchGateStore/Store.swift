import Glibc
import TouchGateSystem
import TouchGateCore

/// The SQLite file that holds touchgate's settings, lock state, lifecycle state and audit log.
///
/// Every method runs in its own short transaction; the ones that guard a credential check take
/// the write lock first (`BEGIN IMMEDIATE`) so that the check and the count are one step for
/// every process that shares the file.
public final class Store {
    public let path: FilePath
    /// Whether this process made the store (it did not exist when it was opened).
    public private(set) var createdByThisProcess = false
    let database: Database
    /// The time every decision about this store's sessions and counters reads (one per process).
    public let clock: any Clock
    /// The limits of `/etc/touchgate.conf`, read when the store was opened: every setting read
    /// from this store is made at least as strict (``configuration(user:)``).
    public let systemPolicy: SystemPolicy

    /// How long the write-ahead log grows before a commit folds it into the file: an `auth`
    /// adds about six pages, and every process that opens the store alone reads the whole log.
    static let checkpointPages: Int32 = 32

    /// The default location: `$XDG_STATE_HOME/touchgate/touchgate.sqlite`, else `~/.local/state/touchgate/…`.
    public static func defaultPath(environment: ProcessEnvironment = .current) -> FilePath? {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return FilePath(state + "/touchgate/touchgate.sqlite")
        }
        var home = environment["HOME"]
        if home?.isEmpty ?? true, let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir {
            home = String(cString: directory)
        }
        guard let home, !home.isEmpty else { return nil }
        return FilePath(home + "/.local/state/touchgate/touchgate.sqlite")
    }

    /// Opens the store at `path`, creating it (0600, in a 0700 directory) and migrating its schema.
    ///
    /// With `expectedID` (the id a generated integration snippet carries), a missing store is
    /// not created and a store with another id is refused: either means the store the lock was
    /// set up with was deleted, moved or replaced.
    public convenience init(path: FilePath, expectedID: String? = nil, clock: any Clock = WallClock()) throws(StoreError) {
        try self.init(path: path, clock: clock, migrator: .embedded, expectedID: expectedID)
    }

    /// `systemPolicy`: the installed one (``SystemPolicy/installed()``) unless a test gives another.
    init(
        path: FilePath, clock: any Clock, migrator: DatabaseMigrator, expectedID: String? = nil,
        systemPolicy: SystemPolicy = .installed()
    ) throws(StoreError) {
        self.path = path
        self.clock = clock
        self.systemPolicy = systemPolicy
        if let expectedID {
            var info = stat()
            if stat(path.string, &info) != 0, errno == ENOENT {
                throw StoreError(path: path, reason: .wrongStore, detail:
                    "does not exist, but the integration that ran touchgate expects store \(expectedID): it was deleted or moved")
            }
        }
        try Self.prepareDirectory(for: path, create: expectedID == nil)
        createdByThisProcess = try Self.createIfMissing(at: path, migrator: migrator)
        try Self.checkFile(at: path)
        try Self.checkRealDirectories(of: path)
        do {
            database = try Database(path: path, create: false)
            try database.execute("PRAGMA synchronous = FULL")
            try database.keepWriteAheadLog(checkpointPages: Self.checkpointPages)
        } catch {
            throw StoreError(path: path, error)
        }
        try Self.migrate(database, path: path, with: migrator)
        try Self.verifySchema(of: database, path: path, against: migrator)
        if let expectedID {
            let found = try storeID()
            guard found == expectedID else {
                throw StoreError(path: path, reason: .wrongStore, detail:
                    "is store \(found), but the integration that ran touchgate expects store \(expectedID): it was replaced")
            }
        }
    }

    /// The random id the store was given when it was made (the `store_identity` table).
    public func storeID() throws(StoreError) -> String {
        let id = try perform { try database.scalar("SELECT id FROM store_identity WHERE singleton = 1")?.string }
        guard let id, !id.isEmpty else {
            throw StoreError(path: path, reason: .corrupt, detail: "has no store id")
        }
        return id
    }

    /// Refuses a store whose schema holds anything the migrations did not make (a trigger, a
    /// view, an index, a table) or differs from it: such an object could change the counters
    /// behind touchgate's back.
    ///
    /// Compares `sqlite_master` (type, name, table, SQL) with what the same migrations made in an
    /// in-memory database when touchgate was built (``DatabaseMigrator/embeddedSchema``).
    private static func verifySchema(of database: Database, path: FilePath, against migrator: DatabaseMigrator) throws(StoreError) {
        let expected: [EmbeddedSchemaObject]
        let found: [EmbeddedSchemaObject]
        do {
            if let built = migrator.builtSchema { expected = built } else { expected = try migrator.referenceSchema() }
            if try DatabaseMigrator.schema(of: database, matches: expected) { return }
            found = try DatabaseMigrator.schema(of: database)
        } catch {
            throw StoreError(path: path, error)
        }
        func describe(_ object: EmbeddedSchemaObject) -> String {
            "\(object.type) '\(object.name.escapedForMessage)'"
        }
        if let foreign = found.first(where: { !expected.contains($0) }) {
            let known = expected.contains { $0.type == foreign.type && $0.name == foreign.name }
            throw StoreError(path: path, reason: .foreignSchema, detail: known
                ? "its \(describe(foreign)) differs from what touchgate's migrations made; restore a backup or move the store away"
                : "holds \(foreign.type == "index" ? "an" : "a") \(describe(foreign)) that touchgate's migrations did not make; remove it or move the store away")
        }
        let missing = expected.first { !found.contains($0) }
        throw StoreError(path: path, reason: .foreignSchema, detail:
            "lacks the \(missing.map(describe) ?? "schema") touchgate's migrations made; restore a backup or move the store away")
    }

    private static func migrate(_ database: Database, path: FilePath, with migrator: DatabaseMigrator) throws(StoreError) {
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

    /// Creates the store's directories (0700) unless `create` is false, and checks every
    /// directory from the store's up to the root (see ``checkDirectories(_:path:)``); a relative
    /// path is taken from the current directory.
    static func prepareDirectory(for path: FilePath, create: Bool = true) throws(StoreError) {
        guard !path.string.isEmpty else { throw StoreError(path: path, reason: .unavailable, detail: "no store path") }
        let absolute: FilePath
        if path.isAbsolute {
            absolute = path
        } else {
            guard let cwd = getcwd(nil, 0) else {
                throw StoreError(path: path, reason: .unavailable, detail: "cannot tell the current directory: \(systemMessage())")
            }
            defer { free(cwd) }
            absolute = FilePath(String(cString: cwd) + "/" + path.string)
        }
        // The directory part of the absolute path ("/" for a file at the root).
        let directory = absolute.removingLastComponent
        if create { try makeDirectories(directory, path: path) }
        try checkDirectories(directory, path: path)
    }

    /// Checks `directory` and each directory above it as OpenSSH's `StrictModes` does: each must
    /// belong to this user or root, and none may be writable by group or others unless it is
    /// sticky (like /tmp, where no one can replace another user's entry). Anyone who could
    /// rename a directory on the way could put another store in place.
    static func checkDirectories(_ directory: FilePath, path: FilePath) throws(StoreError) {
        let user = geteuid()
        // The directory, then each one above it, by cutting a C string at its last slash.
        var buffer = Array(directory.string.utf8CString)
        var end = buffer.count - 1
        while true {
            var info = stat()
            let found = buffer.withUnsafeBufferPointer { stat($0.baseAddress!, &info) == 0 }
            let failure = errno
            // The directory as messages show it (only built when one is needed).
            var shown: String { buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }.escapedForMessage }
            let problem: (StoreError.Reason, String)?
            if !found {
                problem = (.unavailable, "cannot read \(shown): \(systemMessage(failure))")
            } else if (info.st_mode & S_IFMT) != S_IFDIR {
                problem = (.unavailable, "\(shown) is not a directory")
            } else if info.st_uid != user, info.st_uid != 0 {
                problem = (.insecurePermissions,
                           "directory \(shown) belongs to user \(info.st_uid), not to you or root")
            } else if info.st_mode & 0o022 != 0, info.st_mode & S_ISVTX == 0 {
                problem = (.insecurePermissions, "directory \(shown) is writable by other "
                    + "users (mode \(String(info.st_mode & 0o777, radix: 8))); run chmod go-w on it")
            } else {
                problem = nil
            }
            if let (reason, detail) = problem { throw StoreError(path: path, reason: reason, detail: detail) }
            guard end > 1, let slash = buffer[..<end].lastIndex(of: CChar(UInt8(ascii: "/"))) else { return }
            end = max(slash, 1)
            buffer[end] = 0
        }
    }

    /// Checks the directories the store file really lives in, when a symbolic link on the way
    /// (a directory's, or the file's own) leads somewhere else.
    static func checkRealDirectories(of path: FilePath) throws(StoreError) {
        guard let resolved = realpath(path.string, nil) else {
            throw StoreError(path: path, reason: .unavailable, detail: systemMessage())
        }
        defer { free(resolved) }
        let real = FilePath(String(cString: resolved)).removingLastComponent
        if path.isAbsolute, path.removingLastComponent == real { return }
        try checkDirectories(real, path: path)
    }

    /// Creates a new store complete or not at all: migrated under a temporary name in the same
    /// directory, then linked into place. A store file is therefore never seen half-made, and an
    /// existing empty file can only be damage. True when this call made the store.
    @discardableResult
    static func createIfMissing(at path: FilePath, migrator: DatabaseMigrator) throws(StoreError) -> Bool {
        var info = stat()
        if stat(path.string, &info) == 0 { return false }
        guard errno == ENOENT else { throw StoreError(path: path, reason: .unavailable, detail: systemMessage()) }
        let temporary = FilePath(path.string + ".creating-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))")
        // The file and whatever SQLite may leave beside it.
        let temporaryFiles = ["", "-wal", "-shm", "-journal"].map { temporary.string + $0 }
        for file in temporaryFiles { unlink(file) }
        defer { for file in temporaryFiles { unlink(file) } }
        let descriptor = open(temporary.string, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
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
        if link(temporary.string, path.string) != 0 {
            guard errno == EEXIST else {
                throw StoreError(path: path, reason: .unavailable, detail: "cannot create: \(systemMessage())")
            }
            return false
        }
        return true
    }

    /// Refuses anything but a private, non-empty regular file, with private companions.
    static func checkFile(at path: FilePath) throws(StoreError) {
        var info = stat()
        guard stat(path.string, &info) == 0 else { throw StoreError(path: path, reason: .unavailable, detail: systemMessage()) }
        try requirePrivateRegularFile(info, path: path, subject: "is")
        guard info.st_size > 0 else {
            throw StoreError(path: path, reason: .corrupt,
                             detail: "is empty, which touchgate never leaves a store; move it away to start a new one")
        }
        guard access(path.string, R_OK | W_OK) == 0 else {
            throw StoreError(path: path, reason: .unavailable, detail: "cannot read and write: \(systemMessage())")
        }
        // The write-ahead log and its index stay beside the file between runs (see
        // `Database.keepWriteAheadLog`), and SQLite reads committed rows from them: they must be
        // as private as the file itself, and its owner's.
        for suffix in ["-wal", "-shm"] {
            var companion = stat()
            guard lstat(path.string + suffix, &companion) == 0 else { continue }
            try requirePrivateRegularFile(companion, path: path, subject: "its \(suffix) file is")
            guard companion.st_uid == info.st_uid else {
                throw StoreError(path: path, reason: .insecurePermissions, detail:
                    "its \(suffix) file belongs to user \(companion.st_uid), not to the store's owner \(info.st_uid)")
            }
        }
    }

    /// Refuses a file of the store (`subject` names it in the message) that is not a regular
    /// file, or that group or others can write.
    private static func requirePrivateRegularFile(_ info: stat, path: FilePath, subject: String) throws(StoreError) {
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StoreError(path: path, reason: .unavailable, detail: "\(subject) not a regular file")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw StoreError(path: path, reason: .insecurePermissions,
                             detail: "\(subject) writable by other users (mode \(String(info.st_mode & 0o777, radix: 8))); run chmod 600")
        }
    }

    private static func makeDirectories(_ directory: FilePath, path: FilePath) throws(StoreError) {
        var info = stat()
        if stat(directory.string, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw StoreError(path: path, reason: .unavailable, detail: "\(directory.string.escapedForMessage) is not a directory")
            }
            return
        }
        if let slash = directory.string.lastIndex(of: "/"), slash != directory.string.startIndex {
            try makeDirectories(directory.removingLastComponent, path: path)
        }
        if mkdir(directory.string, 0o700) != 0, errno != EEXIST {
            throw StoreError(path: path, reason: .unavailable,
                             detail: "cannot create \(directory.string.escapedForMessage): \(systemMessage())")
        }
    }

    /// Runs `body`, turning any database failure into a ``StoreError`` naming this store, and any
    /// error it did not expect into ``StoreError/Reason/internalError`` (a bug, not the file).
    package func perform<Result>(_ body: () throws -> Result) throws(StoreError) -> Result {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw StoreError(path: path, error)
        } catch let error as Configuration.InvalidValue {
            throw StoreError(path: path, reason: .invalidSetting, detail: "stored \(error)")
        } catch {
            throw StoreError(path: path, reason: .internalError, detail: "internal error: \(error)")
        }
    }

    /// The schema version recorded in the file.
    public func schemaVersion() throws(StoreError) -> Int {
        try perform { try database.scalar("PRAGMA user_version")?.int ?? 0 }
    }
}

/// The text of `errno` (or `code`) as a Swift string.
package func systemMessage(_ code: Int32 = errno) -> String {
    Errno(rawValue: code).description
}
