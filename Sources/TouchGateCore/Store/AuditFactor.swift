/// What an audit entry is about: the `audit.factor` column, stored as the raw value.
public enum AuditFactor: String, Sendable, CaseIterable {
    /// A credential check of the biometric stack.
    case biometric
    /// A credential check of the passcode stack.
    case passcode
    /// An earlier success reused within `reuse-seconds`: nothing was asked.
    case reuse
    /// A lifecycle event of a session (`touchgate event`, a tmux hook, the watcher).
    case lifecycle
    /// A change of the user's state or settings: enable, enroll, reset, `config set`.
    case setting

    /// The entry of a credential check of `factor`.
    public init(_ factor: Factor) {
        switch factor {
        case .biometric: self = .biometric
        case .passcode: self = .passcode
        }
    }
}
