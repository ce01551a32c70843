/// One user's settings, with their defaults, validation and the "does this weaken the lock" rule.
///
/// Each user of a store has settings of their own (``Store/configuration(user:)``): one user's
/// change never reaches another user's lock.
public struct Configuration: Equatable, Sendable {
    /// A setting's name as the command line spells it.
    public enum Key: String, CaseIterable, Sendable {
        case maxBiometricFailures = "max-biometric-failures"
        case biometricTriesPerEvaluation = "biometric-tries-per-evaluation"
        case passcodeTriesPerEvaluation = "passcode-tries-per-evaluation"
        case passcodeDelays = "passcode-delays"
        case graceSeconds = "grace-seconds"
        case reuseSeconds = "reuse-seconds"
        case idleSeconds = "idle-seconds"
        case passcodeService = "passcode-service"
        case biometricService = "biometric-service"
        case logRetention = "log-retention"
        case passcodeAfterIdleHours = "passcode-after-idle-hours"
        case passcodeMaxAgeHours = "passcode-max-age-hours"
        case biometricMaxAgeHours = "biometric-max-age-hours"

        /// The value a user who never set the key has: the stored properties' initial values below,
        /// which are the one place the defaults are written.
        package var defaultValue: String { Configuration().value(of: self) }
    }

    /// A value that a key does not accept.
    public struct InvalidValue: Error, Equatable, Sendable, CustomStringConvertible {
        public let key: String
        public let value: String
        public let expected: String
        public var description: String {
            "invalid value '\(value.escapedForMessage)' for \(key): expected \(expected)"
        }
    }

    public var maxBiometricFailures = 5
    public var biometricTriesPerEvaluation = 3
    /// How many passcode answers one evaluation accepts before it fails with `authenticationFailed`.
    public var passcodeTriesPerEvaluation = 3
    /// Seconds to wait before passcode attempt N+1 after N consecutive failures (index N, last entry repeats).
    public var passcodeDelays: [Int] = [0, 0, 0, 0, 0, 60, 300, 900, 3600]
    public var graceSeconds = 0
    /// Like `LATouchIDAuthenticationMaximumAllowableReuseDuration`: at most 300.
    public var reuseSeconds = 0
    /// Shell integration: a prompt after this many idle seconds counts as a return from the background; 0 is off.
    public var idleSeconds = 0
    public var passcodeService = "touchgate"
    /// Empty means no biometric factor is configured.
    public var biometricService = "touchgate-biometric"
    /// How many audit entries of the user the store keeps (the newest); see ``Store/pruneAudit(user:)``.
    public var logRetention = 1000
    /// The passcode is required after this many hours without an unlock of any kind (iOS: 48).
    public var passcodeAfterIdleHours = 48
    /// With ``biometricMaxAgeHours``: the passcode is required when it has not been used for
    /// this many hours and the finger not for that many (iOS: 156 and 4).
    public var passcodeMaxAgeHours = 156
    public var biometricMaxAgeHours = 4

    /// The fewest audit entries `log-retention` may keep.
    public static let minimumLogRetention = 10

    public init() {}

    /// Builds a configuration from stored text values; keys that are missing keep their defaults.
    /// A stored value that does not validate is an error, never silently replaced.
    public init(stored: [String: String]) throws(InvalidValue) {
        for (name, value) in stored {
            guard let key = Key(rawValue: name) else { continue }
            try set(key, to: value)
        }
    }

    /// The value of `key`, as text in its canonical form.
    public func value(of key: Key) -> String {
        switch key {
        case .maxBiometricFailures: String(maxBiometricFailures)
        case .biometricTriesPerEvaluation: String(biometricTriesPerEvaluation)
        case .passcodeTriesPerEvaluation: String(passcodeTriesPerEvaluation)
        case .passcodeDelays: passcodeDelays.map(String.init).joined(separator: ",")
        case .graceSeconds: String(graceSeconds)
        case .reuseSeconds: String(reuseSeconds)
        case .idleSeconds: String(idleSeconds)
        case .passcodeService: passcodeService
        case .biometricService: biometricService
        case .logRetention: String(logRetention)
        case .passcodeAfterIdleHours: String(passcodeAfterIdleHours)
        case .passcodeMaxAgeHours: String(passcodeMaxAgeHours)
        case .biometricMaxAgeHours: String(biometricMaxAgeHours)
        }
    }

    /// The value of `key` as JSON: a number for a numeric setting, an array of numbers for
    /// `passcode-delays`, a string for a service name.
    public func jsonValue(of key: Key) -> JSONValue {
        switch key {
        case .maxBiometricFailures: .int(maxBiometricFailures)
        case .biometricTriesPerEvaluation: .int(biometricTriesPerEvaluation)
        case .passcodeTriesPerEvaluation: .int(passcodeTriesPerEvaluation)
        case .passcodeDelays: .array(passcodeDelays.map(JSONValue.int))
        case .graceSeconds: .int(graceSeconds)
        case .reuseSeconds: .int(reuseSeconds)
        case .idleSeconds: .int(idleSeconds)
        case .passcodeService: .string(passcodeService)
        case .biometricService: .string(biometricService)
        case .logRetention: .int(logRetention)
        case .passcodeAfterIdleHours: .int(passcodeAfterIdleHours)
        case .passcodeMaxAgeHours: .int(passcodeMaxAgeHours)
        case .biometricMaxAgeHours: .int(biometricMaxAgeHours)
        }
    }

    /// Parses and applies `text` for `key`.
    public mutating func set(_ key: Key, to text: String) throws(InvalidValue) {
        func integer(in range: ClosedRange<Int>) throws(InvalidValue) -> Int {
            guard let value = Int(text), range.contains(value) else {
                throw InvalidValue(key: key.rawValue, value: text, expected: "a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
        func service(allowEmpty: Bool) throws(InvalidValue) -> String {
            let allowed = text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x5F || byte == 0x2E
            }
            guard allowed, text.utf8.count <= 64, allowEmpty || !text.isEmpty, text != ".", text != ".." else {
                throw InvalidValue(key: key.rawValue, value: text, expected: allowEmpty
                    ? "a PAM service name (letters, digits, '.', '_', '-'), or empty to turn the factor off"
                    : "a PAM service name (letters, digits, '.', '_', '-')")
            }
            return text
        }
        switch key {
        case .maxBiometricFailures: maxBiometricFailures = try integer(in: 1...100)
        case .biometricTriesPerEvaluation: biometricTriesPerEvaluation = try integer(in: 1...10)
        case .passcodeTriesPerEvaluation: passcodeTriesPerEvaluation = try integer(in: 1...10)
        case .graceSeconds: graceSeconds = try integer(in: 0...86_400)
        case .reuseSeconds: reuseSeconds = try integer(in: 0...300)
        case .idleSeconds: idleSeconds = try integer(in: 0...604_800)
        case .passcodeService: passcodeService = try service(allowEmpty: false)
        case .biometricService: biometricService = try service(allowEmpty: true)
        case .logRetention: logRetention = try integer(in: Self.minimumLogRetention...1_000_000)
        case .passcodeAfterIdleHours: passcodeAfterIdleHours = try integer(in: 1...8760)
        case .passcodeMaxAgeHours: passcodeMaxAgeHours = try integer(in: 1...8760)
        case .biometricMaxAgeHours: biometricMaxAgeHours = try integer(in: 1...8760)
        case .passcodeDelays:
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            let delays = parts.compactMap { Int($0) }.filter { (0...86_400).contains($0) }
            guard !parts.isEmpty, parts.count <= 32, delays.count == parts.count else {
                throw InvalidValue(key: key.rawValue, value: text,
                                   expected: "1 to 32 comma-separated whole numbers of seconds from 0 to 86400")
            }
            passcodeDelays = delays
        }
    }

    /// True when changing `key` to `newValue` would make the lock easier to get past.
    public func weakens(_ key: Key, to newValue: Configuration) -> Bool {
        switch key {
        case .maxBiometricFailures: newValue.maxBiometricFailures > maxBiometricFailures
        case .biometricTriesPerEvaluation: newValue.biometricTriesPerEvaluation > biometricTriesPerEvaluation
        case .passcodeTriesPerEvaluation: newValue.passcodeTriesPerEvaluation > passcodeTriesPerEvaluation
        case .graceSeconds: newValue.graceSeconds > graceSeconds
        case .reuseSeconds: newValue.reuseSeconds > reuseSeconds
        case .idleSeconds: idleSeconds != 0 && (newValue.idleSeconds == 0 || newValue.idleSeconds > idleSeconds)
        case .passcodeDelays:
            (0...max(passcodeDelays.count, newValue.passcodeDelays.count)).contains { failures in
                newValue.passcodeDelay(afterFailures: failures) < passcodeDelay(afterFailures: failures)
            }
        // Another stack could be pam_permit: any change but turning the biometric factor off weakens.
        case .passcodeService: newValue.passcodeService != passcodeService
        case .biometricService: !newValue.biometricService.isEmpty && newValue.biometricService != biometricService
        // Keeping fewer entries erases the record of past attempts.
        case .logRetention: newValue.logRetention < logRetention
        // A longer spell before the passcode is asked again lets the finger alone unlock longer.
        case .passcodeAfterIdleHours: newValue.passcodeAfterIdleHours > passcodeAfterIdleHours
        case .passcodeMaxAgeHours: newValue.passcodeMaxAgeHours > passcodeMaxAgeHours
        case .biometricMaxAgeHours: newValue.biometricMaxAgeHours > biometricMaxAgeHours
        }
    }

    /// Makes `key` at least as strict as `floor`'s value of it: the value a user holds when
    /// `/etc/touchgate.conf` (``SystemPolicy``) sets `floor` as the weakest allowed.
    ///
    /// Defined next to ``weakens(_:to:)``, key by key, in the same direction: afterwards
    /// `floor.weakens(key, to: self)` is false, and a value that did not weaken is kept.
    /// More tries, a longer grace or reuse window, a later idle relock (or none), a shorter
    /// passcode wait, fewer audit entries kept, more hours before
    /// the passcode is required again are weaker; a service other than the floor's is
    /// weaker (the biometric factor turned off is not).
    public mutating func raise(_ key: Key, toAtLeast floor: Configuration) {
        switch key {
        case .maxBiometricFailures: maxBiometricFailures = min(maxBiometricFailures, floor.maxBiometricFailures)
        case .biometricTriesPerEvaluation: biometricTriesPerEvaluation = min(biometricTriesPerEvaluation, floor.biometricTriesPerEvaluation)
        case .passcodeTriesPerEvaluation: passcodeTriesPerEvaluation = min(passcodeTriesPerEvaluation, floor.passcodeTriesPerEvaluation)
        case .graceSeconds: graceSeconds = min(graceSeconds, floor.graceSeconds)
        case .reuseSeconds: reuseSeconds = min(reuseSeconds, floor.reuseSeconds)
        case .idleSeconds:
            // 0 is off, the weakest: a floor of 0 allows anything, a floor of N allows 1...N.
            if floor.idleSeconds != 0 { idleSeconds = idleSeconds == 0 ? floor.idleSeconds : min(idleSeconds, floor.idleSeconds) }
        case .passcodeDelays:
            // Each wait at least the floor's; both lists repeat their last entry, so the longer length suffices.
            let count = max(passcodeDelays.count, floor.passcodeDelays.count)
            passcodeDelays = (0..<count).map { max(passcodeDelay(afterFailures: $0), floor.passcodeDelay(afterFailures: $0)) }
        case .passcodeService: passcodeService = floor.passcodeService
        case .biometricService: if !biometricService.isEmpty { biometricService = floor.biometricService }
        case .logRetention: logRetention = max(logRetention, floor.logRetention)
        case .passcodeAfterIdleHours: passcodeAfterIdleHours = min(passcodeAfterIdleHours, floor.passcodeAfterIdleHours)
        case .passcodeMaxAgeHours: passcodeMaxAgeHours = min(passcodeMaxAgeHours, floor.passcodeMaxAgeHours)
        case .biometricMaxAgeHours: biometricMaxAgeHours = min(biometricMaxAgeHours, floor.biometricMaxAgeHours)
        }
    }

    /// Seconds to wait before the next passcode attempt after `failures` consecutive failures.
    public func passcodeDelay(afterFailures failures: Int) -> Int {
        guard let last = passcodeDelays.last else { return 0 }
        return failures < passcodeDelays.count ? passcodeDelays[max(0, failures)] : last
    }
}

extension String {
    /// The text as ``TerminalText`` shows it, cut after 200 characters, so a message quoting a
    /// value stays one printable line.
    public var escapedForMessage: String {
        TerminalText.sanitized(self, limit: 200)
    }
}
