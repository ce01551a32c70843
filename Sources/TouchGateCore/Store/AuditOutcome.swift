/// How an audit entry ended: the `audit.outcome` column, stored as ``rawValue``, with the
/// `audit.code` column it goes with (``code``).
public enum AuditOutcome: RawRepresentable, Equatable, Sendable {
    /// The credential was accepted (or an earlier success reused).
    case success
    /// Admitted and counted as a failure before PAM runs; the settlement replaces it. One left
    /// `pending` is a check that never settled (a killed process, a power cut): it stays counted.
    case pending
    /// A passcode attempt refused while `passcode-delays` runs: PAM was not called.
    case throttled
    /// A setting changed (`config set`).
    case changed
    case enabled
    case disabled
    case enrolled
    case unenrolled
    /// The lockout counters were reset.
    case reset
    /// The evaluation ended with this error, stored by its `LAError` name.
    case error(AuthError.Code)
    /// A lifecycle entry: the event applied, stored by its command-line name.
    case event(LifecycleEvent)

    /// The outcome a settled attempt's audit entry takes: `success`, else the error it ended with.
    package init(settling result: AttemptResult) {
        switch result {
        case .success: self = .success
        case .verifiedButCancelled(let code), .failure(let code), .notChecked(let code): self = .error(code)
        }
    }

    /// The text stored in `audit.outcome`.
    public var rawValue: String {
        switch self {
        case .success: "success"
        case .pending: "pending"
        case .throttled: "throttled"
        case .changed: "changed"
        case .enabled: "enabled"
        case .disabled: "disabled"
        case .enrolled: "enrolled"
        case .unenrolled: "unenrolled"
        case .reset: "reset"
        case .error(let code): code.name
        case .event(let event): event.rawValue
        }
    }

    /// Reads a stored outcome; `nil` for text that is none of them.
    public init?(rawValue: String) {
        let simple: [AuditOutcome] = [.success, .pending, .throttled, .changed, .enabled, .disabled, .enrolled,
                                      .unenrolled, .reset]
        if let outcome = simple.first(where: { $0.rawValue == rawValue }) {
            self = outcome
        } else if let code = AuthError.Code(name: rawValue) {
            self = .error(code)
        } else if let event = LifecycleEvent(rawValue: rawValue) {
            self = .event(event)
        } else {
            return nil
        }
    }

    /// The value stored in `audit.code` beside it: the error's code, `authenticationFailed`'s for
    /// a throttled attempt (what the caller is answered), else 0.
    public var code: Int {
        switch self {
        case .error(let code): code.rawValue
        case .throttled: AuthError.Code.authenticationFailed.rawValue
        default: 0
        }
    }
}
