/// The store could not be used; no credential is checked and nothing is unlocked after one.
///
/// Every reason but ``Reason/internalError`` is the file's: the gate holds the session to the
/// passcode alone while it lasts (offline). An internal error is a bug in touchgate (an error
/// the store's code did not expect), which no other store would mend: it ends the command with
/// `EX_SOFTWARE` (70) and never sends the gate offline.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// The file or its directory could not be created, opened, read or written.
        case unavailable
        /// The file is not an SQLite database, or is damaged.
        case corrupt
        /// A newer touchgate wrote this schema.
        case newerSchema(found: Int, known: Int)
        /// Other users could change the file, so its counters cannot be trusted.
        case insecurePermissions
        /// A stored setting does not validate.
        case invalidSetting
        /// The schema holds objects the migrations did not make, or differs from theirs.
        case foreignSchema
        /// Not the store the integration was set up with: missing, or another store's id.
        case wrongStore
        /// An error the store's code did not expect: a bug, not the file (exit 70, `EX_SOFTWARE`).
        case internalError
    }

    /// The store's path as its message shows it: a `String`, not TouchGateSystem's `FilePath`,
    /// because this module imports nothing (TouchGateStore raises it from a `FilePath`).
    public let path: String
    public let reason: Reason
    public let detail: String

    public init(path: String, reason: Reason, detail: String) {
        self.path = path
        self.reason = reason
        self.detail = detail
    }

    public var description: String { "store \(path.escapedForMessage): \(detail)" }
}
