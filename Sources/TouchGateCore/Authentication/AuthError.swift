/// Why an evaluation did not succeed, in the vocabulary of Apple's `LAError`.
///
/// Shaped like Foundation's `CocoaError`: a ``Code`` whose raw values are exactly `LAError.Code`'s,
/// static shortcuts so `catch AuthError.biometryLockout` reads naturally, and `~=` so a code can
/// match any error in a `switch` or `catch`.
public struct AuthError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The error domain, the analogue of `LAErrorDomain`.
    public static let errorDomain = "org.touchgate.AuthError"

    /// One outcome of an evaluation, with `LAError.Code`'s raw value.
    public struct Code: RawRepresentable, Hashable, Sendable, CaseIterable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The user gave a wrong credential for every try the evaluation allowed.
        public static let authenticationFailed = Code(rawValue: -1)
        /// The user cancelled the prompt (end of input, or Ctrl-C).
        public static let userCancel = Code(rawValue: -2)
        /// The user chose the fallback (an empty answer at the biometric prompt) under the biometrics policy.
        public static let userFallback = Code(rawValue: -3)
        /// The system ended the evaluation (SIGTERM, SIGHUP: the terminal went away).
        public static let systemCancel = Code(rawValue: -4)
        /// No passcode can be checked: the passcode stack does not know the user, or accepts no secret at all.
        public static let passcodeNotSet = Code(rawValue: -5)
        /// No biometric factor is configured or its PAM stack cannot run.
        public static let biometryNotAvailable = Code(rawValue: -6)
        /// The user has not enrolled the biometric factor.
        public static let biometryNotEnrolled = Code(rawValue: -7)
        /// Too many consecutive biometric failures; only a passcode success clears it.
        public static let biometryLockout = Code(rawValue: -8)
        /// The application (or a lifecycle event) cancelled a pending evaluation.
        public static let appCancel = Code(rawValue: -9)
        /// The context was invalidated before this evaluation.
        public static let invalidContext = Code(rawValue: -10)
        /// A prompt was needed but interaction is not allowed or there is no terminal.
        public static let notInteractive = Code(rawValue: -1004)

        /// The store could not be used (``AuthError/storeError`` says why): nothing was checked
        /// and nothing unlocks. Not one of `LAError`'s codes (so not in ``allCases``): the CLI
        /// reports it as the store's error, exit 74.
        public static let storeUnavailable = Code(rawValue: -1100)

        public static let allCases: [Code] = [
            .authenticationFailed, .userCancel, .userFallback, .systemCancel, .passcodeNotSet,
            .biometryNotAvailable, .biometryNotEnrolled, .biometryLockout, .appCancel, .invalidContext,
            .notInteractive,
        ]

        /// The `LAError.Code` case name, as JSON output spells the outcome.
        public var name: String {
            switch self {
            case .authenticationFailed: "authenticationFailed"
            case .userCancel: "userCancel"
            case .userFallback: "userFallback"
            case .systemCancel: "systemCancel"
            case .passcodeNotSet: "passcodeNotSet"
            case .biometryNotAvailable: "biometryNotAvailable"
            case .biometryNotEnrolled: "biometryNotEnrolled"
            case .biometryLockout: "biometryLockout"
            case .appCancel: "appCancel"
            case .invalidContext: "invalidContext"
            case .notInteractive: "notInteractive"
            case .storeUnavailable: "storeUnavailable"
            default: "unknown(\(rawValue))"
            }
        }

        /// The code whose ``name`` is `name`.
        public init?(name: String) {
            guard let code = Code.allCases.first(where: { $0.name == name }) else { return nil }
            self = code
        }

        /// A sentence for a person, without any detail of the credential.
        public var message: String {
            switch self {
            case .authenticationFailed: "Authentication failed."
            case .userCancel: "Authentication was cancelled by the user."
            case .userFallback: "The user chose the passcode fallback."
            case .systemCancel: "Authentication was cancelled by the system."
            case .passcodeNotSet: "No passcode is set for this user."
            case .biometryNotAvailable: "The biometric factor is not available."
            case .biometryNotEnrolled: "The biometric factor is not enrolled."
            case .biometryLockout: "The biometric factor is locked out after too many failures; use the passcode."
            case .appCancel: "Authentication was cancelled by the application."
            case .invalidContext: "The authentication context was invalidated."
            case .notInteractive: "Authentication needs interaction, which is not allowed here."
            case .storeUnavailable: "The store cannot be used."
            default: "Unknown authentication error \(rawValue)."
            }
        }
    }

    public let code: Code
    /// While passcode attempts are throttled: how long until the next attempt is allowed.
    public let retryAfterSeconds: Int?
    /// A sentence naming what is wrong when the code alone cannot say it (the missing service
    /// file of `passcodeNotSet`); shown in place of the code's own sentence.
    public let detail: String?
    /// With ``Code/storeUnavailable``: why the store could not be used.
    public let storeError: StoreError?
    /// With ``Code/biometryLockout``: why the passcode is required (``PasscodeRequirement``).
    public let passcodeRequired: PasscodeRequirement.Reason?

    public init(_ code: Code, retryAfterSeconds: Int? = nil, detail: String? = nil,
                passcodeRequired: PasscodeRequirement.Reason? = nil) {
        self.code = code
        self.retryAfterSeconds = retryAfterSeconds
        self.detail = detail
        self.storeError = nil
        self.passcodeRequired = passcodeRequired
    }

    /// The store failed during an evaluation (``Code/storeUnavailable``): it ends, failed closed.
    public init(_ storeError: StoreError) {
        self.code = .storeUnavailable
        self.retryAfterSeconds = nil
        self.detail = storeError.description
        self.storeError = storeError
        self.passcodeRequired = nil
    }

    /// Runs `body`, whose store errors become ``Code/storeUnavailable``: for the typed `throws(AuthError)`
    /// of an evaluation that reads and writes the store.
    package static func wrapping<T>(_ body: () throws(StoreError) -> T) throws(AuthError) -> T {
        do { return try body() } catch { throw AuthError(error) }
    }

    public var message: String {
        let sentence = detail ?? code.message
        guard let retryAfterSeconds else { return sentence }
        return sentence + " Try again in \(retryAfterSeconds) s."
    }

    public var description: String { message }

    public static var authenticationFailed: Code { .authenticationFailed }
    public static var userCancel: Code { .userCancel }
    public static var userFallback: Code { .userFallback }
    public static var systemCancel: Code { .systemCancel }
    public static var passcodeNotSet: Code { .passcodeNotSet }
    public static var biometryNotAvailable: Code { .biometryNotAvailable }
    public static var biometryNotEnrolled: Code { .biometryNotEnrolled }
    public static var biometryLockout: Code { .biometryLockout }
    public static var appCancel: Code { .appCancel }
    public static var invalidContext: Code { .invalidContext }
    public static var notInteractive: Code { .notInteractive }
    public static var storeUnavailable: Code { .storeUnavailable }
}

/// Matches an error against a code: `case AuthError.userCancel:` in a `catch` or `switch`.
public func ~= (code: AuthError.Code, error: any Error) -> Bool {
    (error as? AuthError)?.code == code
}
