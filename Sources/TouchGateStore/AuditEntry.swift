import TouchGateCore

/// One line of the audit trail. It names what happened, never what was typed.
public struct AuditEntry: Equatable, Sendable {
    public var id: Int64
    public var time: Double
    public var user: String
    public var session: String?
    public var policy: String?
    public var factor: String
    public var outcome: String
    public var code: Int
    /// For a configuration change: the setting, its old and new value, and who changed it.
    public var change: SettingChange?
}
