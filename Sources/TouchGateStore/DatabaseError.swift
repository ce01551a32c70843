internal import CSQLite

/// An error from SQLite, with its result code and message.
///
/// Shaped like GRDB's `DatabaseError`: the primary result code says what kind of failure it was
/// (busy, corrupt, not a database, read-only, full), the message says what SQLite reported.
package struct DatabaseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The extended SQLite result code, for example `SQLITE_BUSY` (5) or `SQLITE_NOTADB` (26).
    package let extendedResultCode: Int32
    /// SQLite's message for the failure; never contains bound values.
    package let message: String

    /// The primary result code (the low byte of the extended one).
    package var resultCode: Int32 { extendedResultCode & 0xFF }

    package init(resultCode: Int32, message: String) {
        self.extendedResultCode = resultCode
        self.message = message
    }

    init(connection: OpaquePointer?, resultCode: Int32) {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(resultCode))
        self.init(resultCode: connection.map { sqlite3_extended_errcode($0) } ?? resultCode, message: message)
    }

    /// True when the database file is damaged or is not an SQLite database at all.
    package var isCorruption: Bool { resultCode == SQLITE_CORRUPT || resultCode == SQLITE_NOTADB }

    package var description: String { message }
}
