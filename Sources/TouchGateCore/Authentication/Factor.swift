/// Which credential a PAM stack checks; the same PAM status means different things for each
/// (``PAMOutcome/errorCode(for:)``).
public enum Factor: String, Sendable {
    case biometric
    case passcode
}
