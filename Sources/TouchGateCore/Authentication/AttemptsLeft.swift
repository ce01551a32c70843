/// What is left of a factor after a wrong try, or as `status` reads it from the store.
public struct AttemptsLeft: Sendable, Equatable {
    /// Tries of the factor this evaluation still allows; `nil` outside an evaluation.
    public var inEvaluation: Int?
    /// Wrong tries that can still be made before the factor stops: the biometric lockout
    /// (`max-biometric-failures`), or the passcode's next delay (`passcode-delays`); `nil` when
    /// no delay will ever come.
    public var beforeStop: Int?
    /// The passcode's delay that comes after those tries, in seconds (`nil` for the biometric factor).
    public var delaySeconds: Int?

    public init(inEvaluation: Int?, beforeStop: Int?, delaySeconds: Int? = nil) {
        self.inEvaluation = inEvaluation
        self.beforeStop = beforeStop
        self.delaySeconds = delaySeconds
    }
}
