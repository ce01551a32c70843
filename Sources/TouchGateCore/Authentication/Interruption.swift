/// Why a prompt or an evaluation was cut short from outside.
public enum Interruption: UInt8, Sendable {
    /// SIGINT: the user pressed Ctrl-C.
    case user = 1
    /// SIGTERM or SIGHUP: the system or the terminal went away.
    case system = 2
    /// `invalidate()` or a lifecycle event (SIGUSR1 from `touchgate event did-enter-background`).
    case application = 3

    /// The outcome an evaluation cut short this way ends with.
    public var code: AuthError.Code {
        switch self {
        case .user: .userCancel
        case .system: .systemCancel
        case .application: .appCancel
        }
    }
}
