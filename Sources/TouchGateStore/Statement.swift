internal import CSQLite
import Glibc

// SQLite's "make your own copy of this text now" destructor, which the C header spells as a cast.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A compiled SQL statement.
final class Statement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer

    init(handle: OpaquePointer, connection: OpaquePointer) {
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds `values` to the parameters `?1`, `?2`, … in order.
    func bind(_ values: [DatabaseValue]) throws(DatabaseError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32 = switch value {
            case .null: sqlite3_bind_null(handle, index)
            case .integer(let integer): sqlite3_bind_int64(handle, index, integer)
            case .real(let real): sqlite3_bind_double(handle, index, real)
            case .text(let text): sqlite3_bind_text(handle, index, text, -1, transient)
            }
            guard status == SQLITE_OK else { throw DatabaseError(connection: connection, resultCode: status) }
        }
    }

    /// Advances to the next row: `true` when a row is ready, `false` when the statement is done.
    ///
    /// The corresponding C function is `sqlite3_step`.
    func step() throws(DatabaseError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let status: throw DatabaseError(connection: connection, resultCode: status)
        }
    }

    var columnCount: Int { Int(sqlite3_column_count(handle)) }

    func value(at column: Int) -> DatabaseValue {
        let index = Int32(column)
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_NULL: return .null
        default: return .text(sqlite3_column_text(handle, index).map { String(cString: $0) } ?? "")
        }
    }

    /// True when `column` holds exactly the text `expected` (NULL for `nil`), compared byte by
    /// byte without making a Swift string of the column.
    func column(_ column: Int, equals expected: String?) -> Bool {
        let index = Int32(column)
        let type = sqlite3_column_type(handle, index)
        guard var expected else { return type == SQLITE_NULL }
        guard type == SQLITE_TEXT, let bytes = sqlite3_column_text(handle, index) else { return false }
        let count = Int(sqlite3_column_bytes(handle, index))
        return expected.withUTF8 { text in
            text.count == count && (count == 0 || memcmp(text.baseAddress!, bytes, count) == 0)
        }
    }
}
