/// A configuration change as the audit log records it.
public struct SettingChange: Equatable, Sendable {
    public var key: String
    public var oldValue: String
    public var newValue: String
    /// The invoking user who made the change (the entry's `user` is whose setting it is).
    public var actor: String?

    public init(key: String, oldValue: String, newValue: String, actor: String?) {
        self.key = key
        self.oldValue = oldValue
        self.newValue = newValue
        self.actor = actor
    }
}
