import Testing
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGateStore
@testable import TouchGateSystem

/// The rules of ``PasscodeRequirement`` in an evaluation, with a real store and a set clock: a
/// refused finger is never a PAM call, the error carries the reason, a passcode success lifts
/// the rules, and they meet the throttle and the lockout as they should.
@Suite struct PasscodeRulesEvaluationTests {
    typealias Checker = EvaluationTests.ScriptedChecker
    static let hour = 3600.0

    static func setUp() throws -> (Store, TestClock) {
        let clock = TestClock()
        let store = try Store(path: FilePath(temporaryStorePath()), clock: clock)
        try store.setEnrolled(true, user: "alice", session: nil)
        return (store, clock)
    }

    static func context(_ store: Store, passcode: Checker, biometric: Checker) -> AuthContext {
        AuthContext(user: "alice", store: store, checker: passcode, biometricChecker: biometric, prompts: EvaluationTests.Silent())
    }

    @Test func withoutAPasscodeSinceThisBootTheFingerIsNeverTried() throws {
        let (store, _) = try Self.setUp()
        let biometric = Checker([EvaluationTests.result(.success)])
        let context = Self.context(store, passcode: Checker([]), biometric: biometric)
        do {
            try context.evaluateSynchronously(.biometrics, reason: "test")
            Issue.record("the finger unlocked after a restart")
        } catch {
            #expect(error.code == .biometryLockout)
            #expect(error.passcodeRequired == .restart)
            #expect(error.message == "Your passcode is required after a restart.")
        }
        #expect(biometric.calls.withLock { $0 }.isEmpty)
        #expect(try store.user("alice").biometricFailures == 0)
        #expect(throws: AuthError(.biometryLockout, detail: PasscodeRequirement.Reason.restart.sentence, passcodeRequired: .restart)) {
            try context.canEvaluate(.biometrics)
        }
    }

    @Test func deviceOwnerGoesStraightToThePasscodeWhichLiftsTheRule() throws {
        let (store, clock) = try Self.setUp()
        let biometric = Checker([EvaluationTests.result(.success)])
        let passcode = Checker([EvaluationTests.result(.success)])
        try Self.context(store, passcode: passcode, biometric: biometric).evaluateSynchronously(.deviceOwner, reason: "test")
        #expect(biometric.calls.withLock { $0 }.isEmpty)
        #expect(passcode.calls.withLock { $0 } == ["touchgate"])
        let record = try store.user("alice")
        #expect(record.lastPasscodeSuccess == clock.now)
        #expect(record.lastPasscodeBoot == BootID.current())
        #expect(try store.passcodeRequired(user: "alice") == nil)
        // Now the finger is tried, and its success kept.
        clock.advance(by: 60)
        try Self.context(store, passcode: Checker([]), biometric: biometric).evaluateSynchronously(.biometrics, reason: "test")
        #expect(biometric.calls.withLock { $0 } == ["touchgate-biometric"])
        #expect(try store.user("alice").lastBiometricSuccess == clock.now)
    }

    @Test func theIdleRuleHoldsAfter48HoursToTheMinute() throws {
        let (store, clock) = try Self.setUp()
        try store.passcodeSucceededInThisBoot(user: "alice")
        clock.advance(by: 48 * Self.hour - 60)
        #expect(try store.passcodeRequired(user: "alice") == nil)
        clock.advance(by: 60)
        #expect(try store.passcodeRequired(user: "alice") == .idle)
        let biometric = Checker([EvaluationTests.result(.success)])
        #expect(throws: AuthError(.biometryLockout, detail: PasscodeRequirement.Reason.idle.sentence, passcodeRequired: .idle)) {
            try Self.context(store, passcode: Checker([]), biometric: biometric).evaluateSynchronously(.biometrics, reason: "test")
        }
        #expect(biometric.calls.withLock { $0 }.isEmpty)
        // The refusal's audit entry is a time the clock reached: set back 47 h, the rule still holds.
        clock.advance(by: -47 * Self.hour)
        #expect(try store.passcodeRequired(user: "alice") == .idle, "a clock set back does not make the rule younger")
    }

    @Test func lockdownHoldsUntilThePasscodeAndTheAdministratorsToo() throws {
        let (store, _) = try Self.setUp()
        try store.passcodeSucceededInThisBoot(user: "alice")
        try store.lockdown(user: "alice", byAdministrator: false, session: nil)
        #expect(try store.passcodeRequired(user: "alice") == .lockdown)
        try store.lockdown(user: "alice", byAdministrator: true, session: nil, actor: "root")
        #expect(try store.passcodeRequired(user: "alice") == .adminLock)
        let changes = try store.auditEntries(limit: 10).compactMap(\.change).map(\.key)
        #expect(changes.contains("lockdown") && changes.contains("admin-lock"))
        // A wrong passcode does not lift it; a right one does.
        let passcode = Checker([EvaluationTests.result(.failed(7)), EvaluationTests.result(.success)])
        try Self.context(store, passcode: passcode, biometric: Checker([])).evaluateSynchronously(.deviceOwner, reason: "test")
        #expect(try store.passcodeRequired(user: "alice") == nil)
        #expect(try store.user("alice").lockdown == false)
    }

    /// A lockdown written after the evaluation read the record, before its biometric admission
    /// (another process's `touchgate lockdown`, an administrator's): the admitting transaction
    /// sees it, so the finger is refused without a PAM call and nothing is counted.
    @Test func aLockdownBetweenTheReadAndTheAdmissionIsSeen() throws {
        for byAdministrator in [false, true] {
            let (store, _) = try Self.setUp()
            try store.passcodeSucceededInThisBoot(user: "alice")
            let record = try store.user("alice")
            let configuration = try store.configuration(user: "alice")
            try store.lockdown(user: "alice", byAdministrator: byAdministrator, session: nil)
            let reason: PasscodeRequirement.Reason = byAdministrator ? .adminLock : .lockdown
            let biometric = Checker([EvaluationTests.result(.success)])
            #expect(throws: AuthError(.biometryLockout, detail: reason.sentence, passcodeRequired: reason)) {
                try Self.context(store, passcode: Checker([]), biometric: biometric)
                    .evaluateSynchronously(.biometrics, reason: "test", configuration: configuration, record: record)
            }
            #expect(biometric.calls.withLock { $0 }.isEmpty, "the reader was called after a lockdown")
            #expect(try store.user("alice").biometricFailures == 0)
            #expect(try store.auditEntries(limit: 1).first?.outcome == AuditOutcome.error(.biometryLockout).rawValue)
            // Device-owner goes to the passcode, whose first prompt says why; its success lifts the lock.
            let passcode = Checker([EvaluationTests.result(.success)])
            let silent = EvaluationTests.Silent()
            _ = try AuthContext(user: "alice", store: store, checker: passcode, biometricChecker: biometric, prompts: silent)
                .evaluateSynchronously(.deviceOwner, reason: "test", configuration: configuration, record: record)
            #expect(biometric.calls.withLock { $0 }.isEmpty)
            #expect(passcode.calls.withLock { $0 } == ["touchgate"])
            #expect(try store.passcodeRequired(user: "alice") == nil)
        }
    }

    /// The store's own answer: a biometric admission under a rule is refused as such, counted nowhere.
    @Test func theAdmissionRefusesTheFingerUnderARule() throws {
        let (store, _) = try Self.setUp()
        let configuration = Configuration()
        #expect(try store.admitAttempt(.biometric, user: "alice", session: nil, purpose: nil, configuration: configuration)
            == .passcodeRequired(.restart))
        try store.passcodeSucceededInThisBoot(user: "alice")
        try store.lockdown(user: "alice", byAdministrator: false, session: nil)
        #expect(try store.admitAttempt(.biometric, user: "alice", session: nil, purpose: nil, configuration: configuration)
            == .passcodeRequired(.lockdown))
        #expect(try store.user("alice").biometricFailures == 0)
    }

    /// A lockdown ends the reuse window of an earlier success too.
    @Test func lockdownEndsTheReuseOfASuccess() throws {
        let (store, clock) = try Self.setUp()
        try store.set(.reuseSeconds, to: "300", user: "alice")
        try store.passcodeSucceededInThisBoot(user: "alice")
        let biometric = Checker([EvaluationTests.result(.success)])
        try Self.context(store, passcode: Checker([]), biometric: biometric).evaluateSynchronously(.biometrics, reason: "test")
        clock.advance(by: 10)
        // Within the window: reused, no PAM call.
        try Self.context(store, passcode: Checker([]), biometric: Checker([])).evaluateSynchronously(.biometrics, reason: "test")
        try store.lockdown(user: "alice", byAdministrator: false, session: nil)
        let after = Checker([EvaluationTests.result(.success)])
        #expect(throws: AuthError(.biometryLockout, detail: PasscodeRequirement.Reason.lockdown.sentence, passcodeRequired: .lockdown)) {
            try Self.context(store, passcode: Checker([]), biometric: after).evaluateSynchronously(.biometrics, reason: "test")
        }
        #expect(after.calls.withLock { $0 }.isEmpty)
    }

    /// A rule that refuses the finger and a throttled passcode: device-owner waits, never asks the finger.
    @Test func aRuleAndTheThrottleTogether() throws {
        let (store, _) = try Self.setUp()
        try store.set(.passcodeDelays, to: "0,60", user: "alice")
        let passcode = Checker([EvaluationTests.result(.failed(7))])
        _ = try? Self.context(store, passcode: passcode, biometric: Checker([])).evaluateSynchronously(.deviceOwner, reason: "test")
        let biometric = Checker([EvaluationTests.result(.success)])
        do {
            try Self.context(store, passcode: Checker([]), biometric: biometric).evaluateSynchronously(.deviceOwner, reason: "test")
            Issue.record("unlocked")
        } catch {
            #expect(error.code == .authenticationFailed)
            #expect(error.retryAfterSeconds == 60)
        }
        #expect(biometric.calls.withLock { $0 }.isEmpty)
    }

    /// The gate's cover says why, as iOS's lock screen, and the finger's lines are gone.
    @Test func theCoverSaysWhyThePasscodeIsRequired() throws {
        let (store, _) = try Self.setUp()
        let record = try store.user("alice")
        let status = GateStatus(user: "alice", session: "s", record: record, configuration: Configuration(), remoteHost: nil,
                                now: store.clock.now, bootID: "some-boot")
        #expect(status.lines.contains("  Your passcode is required after a restart."), "\(status.lines)")
        #expect(!status.lines.contains { $0.contains("Biometric attempts left") })
        try store.passcodeSucceededInThisBoot(user: "alice")
        let fresh = try store.gateStatus(user: "alice", session: "s", remoteHost: nil)
        #expect(fresh.lines.contains { $0.contains("Biometric attempts left") }, "\(fresh.lines)")
    }

    /// The five failures: the store's lockout, with failures as the reason, lifted by a passcode.
    @Test func theLockoutSaysFailures() throws {
        let (store, _) = try Self.setUp()
        try store.passcodeSucceededInThisBoot(user: "alice")
        let biometric = Checker(Array(repeating: EvaluationTests.result(.noMatch), count: 5))
        for _ in 0..<2 {
            _ = try? Self.context(store, passcode: Checker([]), biometric: biometric).evaluateSynchronously(.biometrics, reason: "test")
        }
        #expect(try store.user("alice").biometricFailures == 5)
        #expect(try store.passcodeRequired(user: "alice") == .failures)
        do {
            try Self.context(store, passcode: Checker([]), biometric: biometric).evaluateSynchronously(.biometrics, reason: "test")
        } catch {
            #expect(error.code == .biometryLockout)
            #expect(error.passcodeRequired == .failures)
        }
        #expect(biometric.calls.withLock { $0 }.count == 5)
    }
}
