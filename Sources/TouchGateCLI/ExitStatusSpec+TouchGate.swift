import TouchGateArguments

/// The kinds of touchgate's exit statuses (``CommandTable/exitStatuses``): which statuses a
/// command can end with, besides 0, 64 and 70 (which every command can).
extension ExitStatusSpec.Kind {
    static let success = Self("success")
    static let outcome = Self("outcome")
    static let usage = Self("usage")
    static let badValue = Self("badValue")
    static let watcherMissing = Self("watcherMissing")
    static let internalError = Self("internalError")
    static let store = Self("store")
    static let watcherRunning = Self("watcherRunning")
}
