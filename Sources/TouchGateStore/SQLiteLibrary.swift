internal import CSQLite
import Glibc

/// The SQLite library this process runs: its version, and whether it is part of the executable
/// or a shared library loaded beside it.
///
/// The `touchgate` executable links Debian's static `libsqlite3.a` unless it was built with
/// `TOUCHGATE_SHARED_SQLITE=1` (Linker/StaticSQLite/README.md); `touchgate --version` reports
/// which, so an administrator can tell whether a SQLite update needs touchgate rebuilt.
package struct SQLiteLibrary: Sendable, Equatable {
    /// The version SQLite reports, such as `3.40.1`.
    package let version: String
    /// The shared library SQLite was loaded from, or `nil` when it is linked into the executable.
    package let sharedLibrary: String?

    /// The library of the running process.
    ///
    /// SQLite is the shared library when the `sqlite3_libversion` this code calls is the one in
    /// an already loaded `libsqlite3.so.0`. The corresponding C functions are
    /// `sqlite3_libversion`, and `dlopen` (with `RTLD_NOLOAD`) and `dlsym`.
    package static var current: SQLiteLibrary {
        let libversion: @convention(c) () -> UnsafePointer<CChar>? = sqlite3_libversion
        let version = libversion().map { String(cString: $0) } ?? "unknown"
        let sharedName = "libsqlite3.so.0"
        guard let handle = dlopen(sharedName, RTLD_LAZY | RTLD_NOLOAD) else {
            return SQLiteLibrary(version: version, sharedLibrary: nil)
        }
        defer { dlclose(handle) }
        let called = unsafeBitCast(libversion, to: UnsafeMutableRawPointer.self)
        return SQLiteLibrary(version: version, sharedLibrary: dlsym(handle, "sqlite3_libversion") == called ? sharedName : nil)
    }

    /// How `touchgate --version` describes it: `SQLite 3.40.1, linked in` or `SQLite 3.40.1 from libsqlite3.so.0`.
    package var summary: String {
        "SQLite \(version)" + (sharedLibrary.map { " from \($0)" } ?? ", linked in")
    }
}
