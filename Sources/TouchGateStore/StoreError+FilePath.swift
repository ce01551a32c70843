import TouchGateCore
import TouchGateSystem

/// The store's error made from the store's ``FilePath``: TouchGateCore, where ``StoreError``
/// lives, imports nothing (not even TouchGateSystem), so the error keeps the path as the text its
/// message shows, and the conversion happens here, where the error is raised.
extension StoreError {
    package init(path: FilePath, reason: Reason, detail: String) {
        self.init(path: path.string, reason: reason, detail: detail)
    }
}
