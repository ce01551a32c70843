import Testing
@testable import TouchGate
@testable import TouchGateCore

@Suite struct ConfigurationTests {
    @Test func defaultsMatchTheContract() {
        let configuration = Configuration()
        let expected: [Configuration.Key: String] = [
            .maxBiometricFailures: "5", .biometricTriesPerEvaluation: "3", .passcodeTriesPerEvaluation: "3",
            .passcodeDelays: "0,0,0,0,0,60,300,900,3600", .graceSeconds: "0", .reuseSeconds: "0",
            .idleSeconds: "0", .passcodeService: "touchgate", .biometricService: "touchgate-biometric",
            .logRetention: "1000", .passcodeAfterIdleHours: "48", .passcodeMaxAgeHours: "156", .biometricMaxAgeHours: "4",
        ]
        for key in Configuration.Key.allCases {
            #expect(configuration.value(of: key) == expected[key], "\(key.rawValue)")
            #expect(key.defaultValue == expected[key], "\(key.rawValue)")
        }
    }

    @Test(arguments: [
        ("max-biometric-failures", "0"), ("max-biometric-failures", "101"), ("max-biometric-failures", "five"),
        ("biometric-tries-per-evaluation", "11"), ("grace-seconds", "-1"), ("reuse-seconds", "301"),
        ("idle-seconds", "1e3"), ("passcode-delays", ""), ("passcode-delays", "1,,2"), ("passcode-delays", "-5"),
        ("passcode-delays", "90000"), ("passcode-service", ""), ("passcode-service", "../etc/x"),
        ("biometric-service", "a b"), ("passcode-service", ".."), ("log-retention", "9"), ("log-retention", "1000001"),
        ("passcode-after-idle-hours", "0"), ("passcode-max-age-hours", "8761"), ("biometric-max-age-hours", "4.5"),
    ])
    func badValuesAreRejectedAndChangeNothing(name: String, value: String) throws {
        let key = try #require(Configuration.Key(rawValue: name))
        var configuration = Configuration()
        let before = configuration
        #expect(throws: Configuration.InvalidValue.self) { try configuration.set(key, to: value) }
        #expect(configuration == before)
    }

    @Test func anEmptyBiometricServiceTurnsTheFactorOff() throws {
        var configuration = Configuration()
        try configuration.set(.biometricService, to: "")
        #expect(configuration.biometricService.isEmpty)
    }

    @Test func storedValuesAreValidatedToo() {
        #expect(throws: Configuration.InvalidValue.self) {
            _ = try Configuration(stored: ["reuse-seconds": "9999"])
        }
        #expect((try? Configuration(stored: ["unknown-key": "x", "grace-seconds": "30"]))?.graceSeconds == 30)
    }

    @Test(arguments: [
        ("max-biometric-failures", "6", true), ("max-biometric-failures", "4", false),
        ("biometric-tries-per-evaluation", "4", true), ("biometric-tries-per-evaluation", "1", false),
        ("grace-seconds", "10", true), ("reuse-seconds", "60", true), ("reuse-seconds", "0", false),
        ("passcode-delays", "0,0,0,0,0,60,300,900,3600,7200", false), ("passcode-delays", "0,0,0,0,0,30", true),
        ("passcode-delays", "0,0,0,0,0,60,300,900", true), ("passcode-delays", "0", true),
        ("passcode-service", "other-stack", true), ("biometric-service", "", false),
        ("biometric-service", "touchgate-u2f", true), ("idle-seconds", "60", false),
        ("log-retention", "20", true), ("log-retention", "5000", false),
    ])
    func weakeningIsRecognised(name: String, value: String, weakens: Bool) throws {
        let key = try #require(Configuration.Key(rawValue: name))
        let current = Configuration()
        var updated = current
        try updated.set(key, to: value)
        #expect(current.weakens(key, to: updated) == weakens, "\(name)=\(value)")
    }

    @Test func turningIdleLockingOffOrLongerWeakensIt() throws {
        var current = Configuration()
        current.idleSeconds = 300
        var off = current
        try off.set(.idleSeconds, to: "0")
        var longer = current
        try longer.set(.idleSeconds, to: "600")
        var shorter = current
        try shorter.set(.idleSeconds, to: "60")
        #expect(current.weakens(.idleSeconds, to: off))
        #expect(current.weakens(.idleSeconds, to: longer))
        #expect(!current.weakens(.idleSeconds, to: shorter))
    }

    @Test func jsonValuesAreNumbersWhereTheSettingIsANumber() throws {
        var configuration = Configuration()
        try configuration.set(.graceSeconds, to: "30")
        #expect(configuration.jsonValue(of: .graceSeconds).rendered == "30")
        #expect(configuration.jsonValue(of: .maxBiometricFailures).rendered == "5")
        #expect(configuration.jsonValue(of: .logRetention).rendered == "1000")
        #expect(configuration.jsonValue(of: .passcodeDelays).rendered == "[0,0,0,0,0,60,300,900,3600]")
        #expect(configuration.jsonValue(of: .biometricService).rendered == "\"touchgate-biometric\"")
    }

    @Test func messagesStayOnOneLine() {
        let error = Configuration.InvalidValue(key: "grace-seconds", value: "1\n2", expected: "a number")
        #expect(!error.description.contains("\n"))
    }

    /// For each key: a floor (the system policy's value), a value stricter than it and one weaker,
    /// and what the weaker one is raised to.
    static let floors: [(key: String, floor: String, stricter: String, weaker: String, raised: String)] = [
        ("max-biometric-failures", "3", "2", "5", "3"),
        ("biometric-tries-per-evaluation", "2", "1", "3", "2"),
        ("passcode-tries-per-evaluation", "2", "1", "4", "2"),
        ("passcode-delays", "0,30,60", "0,60,120,300", "0,0,0,600", "0,30,60,600"),
        ("grace-seconds", "60", "30", "300", "60"),
        ("reuse-seconds", "10", "0", "300", "10"),
        ("idle-seconds", "600", "300", "0", "600"),
        ("idle-seconds", "600", "600", "900", "600"),
        ("passcode-service", "touchgate", "touchgate", "other-stack", "touchgate"),
        ("biometric-service", "touchgate-biometric", "", "touchgate-u2f", "touchgate-biometric"),
        ("log-retention", "500", "1000", "100", "500"),
        ("passcode-after-idle-hours", "24", "12", "48", "24"),
        ("passcode-max-age-hours", "72", "24", "156", "72"),
        ("biometric-max-age-hours", "2", "1", "4", "2"),
    ]

    @Test func everyKeyHasAFloorCase() {
        #expect(Set(Self.floors.map(\.key)) == Set(Configuration.Key.allCases.map(\.rawValue)))
    }

    /// ``Configuration/raise(_:toAtLeast:)`` goes the way ``Configuration/weakens(_:to:)`` does,
    /// key by key: a stricter value is kept, a weaker one becomes the floor's, and what is left
    /// never weakens the floor.
    @Test(arguments: floors)
    func raisingToAFloorKeepsAStricterValueAndReplacesAWeakerOne(
        name: String, floorValue: String, stricterValue: String, weakerValue: String, raisedValue: String
    ) throws {
        let key = try #require(Configuration.Key(rawValue: name))
        var floor = Configuration()
        try floor.set(key, to: floorValue)
        var stricter = Configuration()
        try stricter.set(key, to: stricterValue)
        var weaker = Configuration()
        try weaker.set(key, to: weakerValue)
        #expect(!floor.weakens(key, to: stricter), "\(name)=\(stricterValue)")
        #expect(floor.weakens(key, to: weaker), "\(name)=\(weakerValue)")
        var keptStricter = stricter
        keptStricter.raise(key, toAtLeast: floor)
        #expect(keptStricter == stricter, "\(name)=\(stricterValue)")
        var raised = weaker
        raised.raise(key, toAtLeast: floor)
        #expect(raised.value(of: key) == raisedValue, "\(name)=\(weakerValue)")
        #expect(!floor.weakens(key, to: raised), "\(name)=\(weakerValue)")
        // The other keys are untouched.
        for other in Configuration.Key.allCases where other != key {
            #expect(raised.value(of: other) == weaker.value(of: other))
        }
    }

    @Test func anIdleFloorOfZeroAllowsAnything() throws {
        let floor = Configuration()
        var user = Configuration()
        try user.set(.idleSeconds, to: "900")
        #expect(!floor.weakens(.idleSeconds, to: user))
        var raised = user
        raised.raise(.idleSeconds, toAtLeast: floor)
        #expect(raised.idleSeconds == 900)
    }
}
