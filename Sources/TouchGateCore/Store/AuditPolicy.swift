/// Why an audit entry was written: the `audit.policy` column, stored as ``rawValue``. For a
/// credential check it is what the evaluation was for; for a lifecycle entry, what sent the event.
public enum AuditPolicy: RawRepresentable, Equatable, Sendable {
    /// An evaluation of this policy (`auth`, `gate`, the toggles).
    case evaluation(AuthPolicy)
    /// A passcode-only check (the PAM module's passcode factor).
    case passcode
    /// The passcode check before an enrollment, and the enrollment itself.
    case enroll
    case unenroll
    /// The passcode check before a reset, and the reset itself.
    case reset
    case enable
    case disable
    /// A `config set`.
    case config
    /// A lifecycle event from `touchgate event` (or a tmux hook, which runs it).
    case event
    /// A lifecycle event the watcher applied for logind's screen lock.
    case screenLock
    /// A lifecycle event the watcher applied before a suspend.
    case suspend
    /// A lifecycle event `touchgate lock` applied.
    case lock

    /// The text stored in `audit.policy`.
    public var rawValue: String {
        switch self {
        case .evaluation(let policy): policy.rawValue
        case .passcode: "passcode"
        case .enroll: "enroll"
        case .unenroll: "unenroll"
        case .reset: "reset"
        case .enable: "enable"
        case .disable: "disable"
        case .config: "config"
        case .event: "event"
        case .screenLock: "screen-lock"
        case .suspend: "suspend"
        case .lock: "lock"
        }
    }

    /// Reads a stored policy; `nil` for text that is none of them.
    public init?(rawValue: String) {
        if let policy = AuthPolicy(rawValue: rawValue) {
            self = .evaluation(policy)
            return
        }
        let others: [AuditPolicy] = [.passcode, .enroll, .unenroll, .reset, .enable, .disable, .config, .event,
                                     .screenLock, .suspend, .lock]
        guard let policy = others.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = policy
    }
}
