/// One user's lock state, as stored.
public struct UserRecord: Equatable, Sendable {
    public var name: String
    public var enabled = false
    public var enrolled = false
    /// Changes whenever enrollment changes; `nil` while not enrolled.
    public var domainState: String?
    public var biometricFailures = 0
    public var passcodeFailures = 0
    public var lastPasscodeFailure: Double?
    public var lastSuccess: Double?
    /// The last passcode success, and the boot id it happened in (``PasscodeRequirement``).
    public var lastPasscodeSuccess: Double?
    public var lastPasscodeBoot: String?
    public var lastBiometricSuccess: Double?
    /// The user's own `touchgate lockdown`, until the next passcode success.
    public var lockdown = false
    /// An administrator's `touchgate --system lockdown`, until the next passcode success.
    public var adminLock = false
    /// The time of the user's latest audit entry: a time the clock has reached, so a clock set
    /// back afterwards cannot make a rule younger.
    public var latestEntry: Double?

    public init(name: String) {
        self.name = name
    }
}
