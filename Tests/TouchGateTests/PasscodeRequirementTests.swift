import Testing
@testable import TouchGate
@testable import TouchGateCore

/// The rules that refuse the finger and require the passcode (``PasscodeRequirement``), with a
/// set clock: each rule, its boundary minute either side, what lifts it.
@Suite struct PasscodeRequirementTests {
    static let boot = "0b6f3a4e-1c1d-4d6e-9a57-0c1a2b3c4d5e"
    static let hour = 3600.0
    static let start = 1_800_000_000.0

    /// A user whose passcode succeeded at `start` in this boot, and nothing since.
    static func record(passcodeAt passcode: Double? = start, boot: String? = boot) -> UserRecord {
        var record = UserRecord(name: "alice")
        record.enrolled = true
        record.lastPasscodeSuccess = passcode
        record.lastPasscodeBoot = boot
        record.lastSuccess = passcode
        return record
    }

    static func reason(_ record: UserRecord, at now: Double, bootID: String? = boot,
                       configuration: Configuration = Configuration()) -> PasscodeRequirement.Reason? {
        PasscodeRequirement(configuration: configuration).reason(for: record, bootID: bootID, now: now)
    }

    @Test func aFreshPasscodeOfThisBootAllowsTheFinger() {
        #expect(Self.reason(Self.record(), at: Self.start + 60) == nil)
    }

    @Test func afterARestartThePasscodeIsRequired() {
        #expect(Self.reason(Self.record(), at: Self.start + 60, bootID: "another-boot") == .restart)
        #expect(Self.reason(Self.record(passcodeAt: nil, boot: nil), at: Self.start) == .restart)
        // A boot id that cannot be read proves nothing: fail closed.
        #expect(Self.reason(Self.record(), at: Self.start + 60, bootID: nil) == .restart)
    }

    @Test func idleFor48HoursRequiresThePasscode() {
        var record = Self.record()
        // Fingers keep it fresh against the age rule; the idle rule counts from the last unlock.
        record.lastBiometricSuccess = Self.start + 100 * Self.hour
        record.lastSuccess = record.lastBiometricSuccess
        record.lastPasscodeSuccess = Self.start + 99 * Self.hour
        let unlock = Self.start + 100 * Self.hour
        #expect(Self.reason(record, at: unlock + 48 * Self.hour - 60) == nil)
        #expect(Self.reason(record, at: unlock + 48 * Self.hour) == .idle)
        #expect(Self.reason(record, at: unlock + 48 * Self.hour + 60) == .idle)
    }

    @Test func theIdleSettingIsHonoured() {
        var configuration = Configuration()
        configuration.passcodeAfterIdleHours = 2
        #expect(Self.reason(Self.record(), at: Self.start + 2 * Self.hour - 60, configuration: configuration) == nil)
        #expect(Self.reason(Self.record(), at: Self.start + 2 * Self.hour + 60, configuration: configuration) == .idle)
    }

    /// 156 hours without the passcode and 4 without the finger; either fresh keeps the finger.
    @Test func anOldPasscodeWithAStaleFingerRequiresThePasscode() {
        var record = Self.record()
        // The finger every 40 hours keeps the idle rule away.
        let lastFinger = Self.start + 155 * Self.hour
        record.lastBiometricSuccess = lastFinger
        record.lastSuccess = lastFinger
        let passcodeAge = Self.start + 156 * Self.hour
        // At 156 h the finger is 1 h old: fresh.
        #expect(Self.reason(record, at: passcodeAge) == nil)
        // Passcode old, finger 4 h old less a minute: still fresh.
        #expect(Self.reason(record, at: lastFinger + 4 * Self.hour - 60) == nil)
        #expect(Self.reason(record, at: lastFinger + 4 * Self.hour) == .age)
        #expect(Self.reason(record, at: lastFinger + 4 * Self.hour + 60) == .age)
        // Before 156 h a stale finger does not matter.
        record.lastBiometricSuccess = passcodeAge - 5 * Self.hour
        record.lastSuccess = record.lastBiometricSuccess
        #expect(Self.reason(record, at: passcodeAge - 60) == nil)
        #expect(Self.reason(record, at: passcodeAge + 60) == .age)
    }

    @Test func lockdownsComeFirstAndTheAdministratorsBeforeTheUsers() {
        var record = Self.record()
        record.lockdown = true
        #expect(Self.reason(record, at: Self.start + 60) == .lockdown)
        record.adminLock = true
        #expect(Self.reason(record, at: Self.start + 60) == .adminLock)
    }

    @Test func theFiveFailuresAreARule() {
        var record = Self.record()
        record.biometricFailures = 4
        #expect(Self.reason(record, at: Self.start + 60) == nil)
        record.biometricFailures = 5
        #expect(Self.reason(record, at: Self.start + 60) == .failures)
    }

    /// A clock set back never makes a rule younger: the time counted from is the greatest seen.
    @Test func aClockThatWentBackwardsDoesNotMakeARuleYounger() {
        var record = Self.record()
        // An unlock stored at start + 47 h 59 min: the idle spell counts from there.
        record.lastSuccess = Self.start + 47 * Self.hour + 59 * 60
        record.lastBiometricSuccess = record.lastSuccess
        // A failure seen at start + 100 h proves the clock reached it; set back to start, the rules still count from there.
        record.lastPasscodeFailure = Self.start + 100 * Self.hour
        #expect(Self.reason(record, at: Self.start) == .idle)
        // Without that proof, a clock earlier than every stored time changes nothing.
        record.lastPasscodeFailure = nil
        #expect(Self.reason(record, at: Self.start - 1000 * Self.hour) == nil)
    }

    @Test func everyReasonHasASentenceAndAJSONName() {
        #expect(PasscodeRequirement.Reason.allCases.map(\.rawValue) == ["restart", "idle", "age", "lockdown", "adminLock", "failures"])
        #expect(PasscodeRequirement.Reason.restart.sentence == "Your passcode is required after a restart.")
        #expect(Set(PasscodeRequirement.Reason.allCases.map(\.sentence)).count == 6)
    }
}
