import TouchGateCore
import TouchGateSystem

/// A failed SQLite call as the store's error: beside the connection that raises it, so the error
/// type itself (carried by ``AuthError``) knows nothing of SQLite.
extension StoreError {
    init(path: FilePath, _ error: DatabaseError) {
        self.init(path: path, reason: error.isCorruption ? .corrupt : .unavailable, detail: error.message)
    }
}
