import Testing
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGateStore

@Suite(.removesItsFiles) struct LockoutPolicyTests {
    let policy = LockoutPolicy(configuration: Configuration())

    @Test func biometricsLockAfterTheConfiguredFailures() {
        #expect(!policy.biometricLockedOut(failures: 0))
        #expect(!policy.biometricLockedOut(failures: 4))
        #expect(policy.biometricLockedOut(failures: 5))
        #expect(policy.biometricLockedOut(failures: 50))
        var strict = Configuration()
        strict.maxBiometricFailures = 1
        #expect(LockoutPolicy(configuration: strict).biometricLockedOut(failures: 1))
    }

    @Test func defaultScheduleIsFreeForFourFailures() {
        for failures in 0...4 {
            #expect(policy.passcodeRetryAfter(failures: failures, lastFailure: 1000, now: 1000) == nil,
                    "after \(failures) failures")
        }
    }

    @Test(arguments: [(5, 60), (6, 300), (7, 900), (8, 3600), (9, 3600), (40, 3600)])
    func laterFailuresWaitLonger(failures: Int, seconds: Int) {
        #expect(policy.passcodeRetryAfter(failures: failures, lastFailure: 1000, now: 1000) == seconds)
    }

    @Test func theWaitCountsDownFromTheLastFailure() {
        var configuration = Configuration()
        configuration.passcodeDelays = [0, 0, 60]
        let throttling = LockoutPolicy(configuration: configuration)
        #expect(throttling.passcodeRetryAfter(failures: 2, lastFailure: 1000, now: 1000) == 60)
        #expect(throttling.passcodeRetryAfter(failures: 2, lastFailure: 1000, now: 1000.5) == 60)
        #expect(throttling.passcodeRetryAfter(failures: 2, lastFailure: 1000, now: 1030) == 30)
        #expect(throttling.passcodeRetryAfter(failures: 2, lastFailure: 1000, now: 1059.9) == 1)
        #expect(throttling.passcodeRetryAfter(failures: 2, lastFailure: 1000, now: 1060) == nil)
        #expect(throttling.passcodeRetryAfter(failures: 1, lastFailure: 1000, now: 1000) == nil)
    }

    @Test func aClockThatWentBackwardsDoesNotShortenTheWait() {
        var configuration = Configuration()
        configuration.passcodeDelays = [0, 60]
        let throttling = LockoutPolicy(configuration: configuration)
        #expect(throttling.passcodeRetryAfter(failures: 1, lastFailure: 1000, now: 500) == 60)
    }

    @Test func noRecordedFailureMeansNoWait() {
        #expect(policy.passcodeRetryAfter(failures: 7, lastFailure: nil, now: 1000) == nil)
    }
}

/// The write-ahead counting in the store, with an injected clock.
@Suite(.removesItsFiles) struct StoreAttemptTests {
    @Test func everyAdmittedBiometricAttemptCountsUntilSettled() throws {
        let store = try Store(path: FilePath(temporaryStorePath()), clock: TestClock())
        try store.passcodeSucceededInThisBoot(user: "alice")
        let configuration = Configuration()
        for expected in 1...5 {
            guard case .admitted(let attempt) = try store.admitAttempt(
                .biometric, user: "alice", session: nil, purpose: .evaluation(.deviceOwner), configuration: configuration)
            else { Issue.record("attempt \(expected) not admitted"); return }
            // Counted before any verdict: a process killed here leaves the failure behind.
            #expect(try store.user("alice").biometricFailures == expected)
            try store.finishAttempt(attempt, user: "alice", factor: .biometric, result: .failure(.authenticationFailed))
        }
        #expect(try store.admitAttempt(.biometric, user: "alice", session: nil, purpose: .evaluation(.deviceOwner),
                                       configuration: configuration) == .lockedOut)
        #expect(try store.user("alice").biometricFailures == 5)
    }

    @Test func aCancelBeforeAnsweringIsTakenBack() throws {
        let store = try Store(path: FilePath(temporaryStorePath()), clock: TestClock())
        try store.passcodeSucceededInThisBoot(user: "alice")
        guard case .admitted(let attempt) = try store.admitAttempt(
            .biometric, user: "alice", session: nil, purpose: .evaluation(.deviceOwner), configuration: Configuration())
        else { Issue.record("not admitted"); return }
        try store.finishAttempt(attempt, user: "alice", factor: .biometric, result: .notChecked(.userCancel))
        #expect(try store.user("alice").biometricFailures == 0)
        let entry = try #require(try store.auditEntries(limit: 1).first)
        #expect(entry.outcome == "userCancel")
    }

    @Test func aPasscodeSuccessClearsBothCounters() throws {
        let store = try Store(path: FilePath(temporaryStorePath()), clock: TestClock())
        try store.passcodeSucceededInThisBoot(user: "alice")
        let configuration = Configuration()
        for _ in 0..<5 {
            if case .admitted(let attempt) = try store.admitAttempt(
                .biometric, user: "alice", session: nil, purpose: .evaluation(.deviceOwner), configuration: configuration) {
                try store.finishAttempt(attempt, user: "alice", factor: .biometric, result: .failure(.authenticationFailed))
            }
        }
        guard case .admitted(let attempt) = try store.admitAttempt(
            .passcode, user: "alice", session: nil, purpose: .evaluation(.deviceOwner), configuration: configuration)
        else { Issue.record("passcode not admitted"); return }
        try store.finishAttempt(attempt, user: "alice", factor: .passcode, result: .success)
        let record = try store.user("alice")
        #expect(record.biometricFailures == 0)
        #expect(record.passcodeFailures == 0)
        #expect(record.lastSuccess != nil)
    }

    @Test func passcodeThrottlingFollowsTheInjectedClock() throws {
        let clock = TestClock()
        let store = try Store(path: FilePath(temporaryStorePath()), clock: clock)
        var configuration = Configuration()
        configuration.passcodeDelays = [0, 0, 60]
        for _ in 0..<2 {
            guard case .admitted(let attempt) = try store.admitAttempt(
                .passcode, user: "alice", session: nil, purpose: .evaluation(.deviceOwner), configuration: configuration)
            else { Issue.record("not admitted"); return }
            try store.finishAttempt(attempt, user: "alice", factor: .passcode, result: .failure(.authenticationFailed))
        }
        #expect(try store.admitAttempt(.passcode, user: "alice", session: nil, purpose: .evaluation(.deviceOwner),
                                       configuration: configuration) == .throttled(retryAfterSeconds: 60))
        clock.advance(by: 59)
        #expect(try store.admitAttempt(.passcode, user: "alice", session: nil, purpose: .evaluation(.deviceOwner),
                                       configuration: configuration) == .throttled(retryAfterSeconds: 1))
        clock.advance(by: 1)
        guard case .admitted = try store.admitAttempt(
            .passcode, user: "alice", session: nil, purpose: .evaluation(.deviceOwner), configuration: configuration)
        else { Issue.record("still throttled after the delay"); return }
        #expect(try store.user("alice").passcodeFailures == 3)
    }

    @Test func usersAreCountedSeparately() throws {
        let store = try Store(path: FilePath(temporaryStorePath()), clock: TestClock())
        try store.passcodeSucceededInThisBoot(user: "alice")
        if case .admitted(let attempt) = try store.admitAttempt(
            .biometric, user: "alice", session: nil, purpose: .evaluation(.deviceOwner), configuration: Configuration()) {
            try store.finishAttempt(attempt, user: "alice", factor: .biometric, result: .failure(.authenticationFailed))
        }
        #expect(try store.user("alice").biometricFailures == 1)
        #expect(try store.user("bob").biometricFailures == 0)
    }
}
