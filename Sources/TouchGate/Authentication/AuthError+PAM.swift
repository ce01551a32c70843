/// Which credential a PAM stack checks; the same PAM status means different things for each.
public enum Factor: String, Sendable {
    case biometric
    case passcode
}

extension AuthError {
    /// The error `factor`'s stack ending with `outcome` stands for, or `nil` for success.
    ///
    /// Everything that is not success or a known "cannot check" outcome fails closed as
    /// `authenticationFailed`: a broken stack never unlocks.
    init?(_ outcome: PAMOutcome, factor: Factor) {
        guard let code = outcome.errorCode(for: factor) else { return nil }
        self.init(code)
    }
}
