/// What an evaluation accepts, after `LAPolicy`.
public enum AuthPolicy: String, Sendable, CaseIterable {
    /// `deviceOwnerAuthenticationWithBiometrics`: the biometric factor only; an empty answer is the
    /// fallback button and ends the evaluation with `userFallback`.
    case biometrics
    /// `deviceOwnerAuthentication`: the biometric factor first, then the passcode.
    case deviceOwner = "device-owner"
}
