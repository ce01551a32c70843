internal import CSQLite
import Glibc
import TouchGateSystem

/// One connection to an SQLite file.
///
/// A thin, synchronous wrapper: statements, bindings and transactions, nothing more. Every call
/// reports failure as a ``DatabaseError``; nothing is retried here except through SQLite's own
/// busy timeout, so that concurrent writers queue instead of failing.
final class Database {
    let path: FilePath
    private let connection: OpaquePointer
    private let logFolding = LogFolding()

    /// When the write-ahead log is folded into the file; read by SQLite's WAL hook on this
    /// connection's thread.
    private final class LogFolding {
        /// The log size, in pages, at which a commit folds it in (until ``keepWriteAheadLog(checkpointPages:)``
        /// installs the hook, SQLite's own `wal_autocheckpoint` applies).
        var checkpointPages: Int32 = 0
        /// Set while a commit must not wait for a checkpoint (``Checkpoint/deferred``).
        var deferred = false
        /// A deferred commit reached ``checkpointPages``.
        var due = false
    }

    /// Opens (and with `create`, creates) the database at `path`.
    ///
    /// The corresponding C function is `sqlite3_open_v2`.
    init(path: FilePath, create: Bool, busyTimeoutMilliseconds: Int32 = 15_000) throws(DatabaseError) {
        var handle: OpaquePointer?
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        if create { flags |= SQLITE_OPEN_CREATE }
        let status = sqlite3_open_v2(path.string, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let error = DatabaseError(connection: handle, resultCode: status)
            sqlite3_close_v2(handle)
            throw error
        }
        self.path = path
        self.connection = handle
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    }

    deinit {
        sqlite3_close_v2(connection)
    }

    /// Leaves the write-ahead log in place when this connection closes, folding it into the file
    /// only once it holds `checkpointPages` pages.
    ///
    /// By default the last connection to close checkpoints the log (two `fdatasync` calls) and
    /// deletes it, and the next one to open creates it again (two more). A short-lived process
    /// pays all four; keeping the log pays for one checkpoint every `checkpointPages` pages. The
    /// log stays short because every process that opens the store first alone reads all of it.
    ///
    /// The commit that brings the log to `checkpointPages` folds it in before it returns (a
    /// passive checkpoint, as SQLite's own `wal_autocheckpoint` does), unless its transaction
    /// deferred that (``Checkpoint/deferred``).
    ///
    /// The corresponding C functions are `sqlite3_file_control` (`SQLITE_FCNTL_PERSIST_WAL`),
    /// `sqlite3_db_config` (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`) and `sqlite3_wal_hook`.
    func keepWriteAheadLog(checkpointPages: Int32) throws(DatabaseError) {
        var persist: Int32 = 1
        for status in [
            sqlite3_file_control(connection, "main", SQLITE_FCNTL_PERSIST_WAL, &persist),
            touchgate_sqlite3_db_config_int(connection, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1),
        ] where status != SQLITE_OK {
            throw DatabaseError(connection: connection, resultCode: status)
        }
        logFolding.checkpointPages = checkpointPages
        sqlite3_wal_hook(connection, { context, connection, schema, pages in
            let folding = Unmanaged<LogFolding>.fromOpaque(context!).takeUnretainedValue()
            guard pages >= folding.checkpointPages else { return SQLITE_OK }
            if folding.deferred {
                folding.due = true
            } else {
                // A checkpoint that cannot finish now (a reader holds old pages) is retried by
                // the next commit; like SQLite's own hook, it never fails the commit.
                sqlite3_wal_checkpoint_v2(connection, schema, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(logFolding).toOpaque())
    }

    /// Starts the checkpoint a deferred commit left due, on a helper thread with a connection of
    /// its own; `nil` when none is due.
    ///
    /// This connection may go on reading and writing meanwhile (a checkpoint never blocks them);
    /// join the helper before the process exits so the checkpoint finishes. One that fails is
    /// left to the next commit, which finds the log still over its limit.
    func foldLogInBackground() -> HelperThread? {
        guard logFolding.due else { return nil }
        logFolding.due = false
        let (path, pages) = (self.path, logFolding.checkpointPages)
        return HelperThread {
            // A connection opens the log with its first read: until then it has nothing to fold.
            guard let folder = try? Database(path: path, create: false),
                  (try? folder.keepWriteAheadLog(checkpointPages: pages)) != nil,
                  (try? folder.scalar("PRAGMA user_version")) != nil else { return }
            folder.foldLogPassively()
        }
    }

    /// Copies the log's frames into the file as far as no reader still needs them, without
    /// waiting for anyone; what is left stays for a later checkpoint.
    ///
    /// The corresponding C function is `sqlite3_wal_checkpoint_v2` (`SQLITE_CHECKPOINT_PASSIVE`).
    private func foldLogPassively() {
        sqlite3_wal_checkpoint_v2(connection, "main", SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }

    /// Runs one or more statements that return no rows.
    ///
    /// The corresponding C function is `sqlite3_exec`.
    func execute(_ sql: String) throws(DatabaseError) {
        let status = sqlite3_exec(connection, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw DatabaseError(connection: connection, resultCode: status) }
    }

    /// Compiles one statement.
    func prepare(_ sql: String) throws(DatabaseError) -> Statement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw DatabaseError(connection: connection, resultCode: status)
        }
        return Statement(handle: statement, connection: connection)
    }

    /// Runs one statement with `arguments` bound in order, discarding any rows.
    func run(_ sql: String, _ arguments: DatabaseValue...) throws(DatabaseError) {
        try run(sql, arguments: arguments)
    }

    /// Runs one statement with `arguments` bound in order, discarding any rows.
    func run(_ sql: String, arguments: [DatabaseValue]) throws(DatabaseError) {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        while try statement.step() {}
    }

    /// The rows of one query, each as an array of column values.
    func rows(_ sql: String, _ arguments: DatabaseValue...) throws(DatabaseError) -> [[DatabaseValue]] {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        var rows: [[DatabaseValue]] = []
        while try statement.step() {
            rows.append((0..<statement.columnCount).map { statement.value(at: $0) })
        }
        return rows
    }

    /// The first column of the first row, or `nil` when the query returns no row.
    func scalar(_ sql: String, _ arguments: DatabaseValue...) throws(DatabaseError) -> DatabaseValue? {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        return try statement.step() ? statement.value(at: 0) : nil
    }

    /// How SQLite takes its locks at the start of a transaction.
    enum TransactionKind: String {
        case deferred = "DEFERRED"
        /// Takes the write lock at once, so a read-check-write sequence cannot interleave with
        /// another process's.
        case immediate = "IMMEDIATE"
    }

    /// Whether a commit waits for the disk.
    enum Durability {
        /// The commit is on the disk before it returns (`synchronous = FULL`): it survives a
        /// power cut.
        case synced
        /// The commit is in the operating system's cache (`synchronous = NORMAL`): it survives
        /// the process being killed, and reaches the disk with the next synced commit or
        /// checkpoint. Only for writes whose loss in a power cut leaves the store stricter.
        case cached
    }

    /// When the commit that brings the write-ahead log to its limit folds the log in.
    enum Checkpoint {
        /// Before the commit returns, as SQLite's `wal_autocheckpoint` does.
        case inline
        /// Later: in ``foldLogInBackground()``, or else at the start of this connection's next
        /// transaction. For the commits of an evaluation: the one before PAM then does not wait
        /// for the checkpoint's two `fdatasync` calls, which overlap the credential check instead,
        /// and the one after PAM does not fold in a log that only its own process could start
        /// over (a process that opens the store cannot tell which frames were folded in already).
        case deferred
    }

    /// Runs `body` inside a transaction: committed when it returns, rolled back when it throws.
    func transaction<Result, Failure: Error>(
        _ kind: TransactionKind = .immediate,
        durability: Durability = .synced,
        checkpoint: Checkpoint = .inline,
        _ body: () throws(Failure) -> Result
    ) throws -> Result {
        if logFolding.due {
            // Before this write, not after it: the write then starts the log over, which the
            // next process would not (it cannot know the old frames were folded in already).
            logFolding.due = false
            foldLogPassively()
        }
        if durability == .cached { try execute("PRAGMA synchronous = NORMAL") }
        logFolding.deferred = checkpoint == .deferred
        defer {
            logFolding.deferred = false
            if durability == .cached { try? execute("PRAGMA synchronous = FULL") }
        }
        try execute("BEGIN \(kind.rawValue)")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The rowid of the last row this connection inserted.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(connection) }
}
