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

    public init(name: String) {
        self.name = name
    }
}
