import Testing
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGateStore

/// ``SettingChanges`` against a real store: which change asks for which authorization, and that
/// a refused one changes nothing. The evaluation is the use case's port, here a recorder that
/// answers as the test says (the evaluation itself is AuthContext's, tested on its own).
@Suite(.removesItsFiles) struct SettingChangesTests {
    final class Authorizer {
        var asked: [Authorization] = []
        var answer: AuthError?
        func authorize(_ authorization: Authorization) -> AuthError? {
            asked.append(authorization)
            return answer
        }
    }

    static func changes(lockOn: Bool, answer: AuthError? = nil) throws -> (SettingChanges, Authorizer) {
        let store = try Store(path: FilePath(temporaryStorePath()))
        if lockOn { try store.setEnabled(true, user: "alice", session: nil) }
        let authorizer = Authorizer()
        authorizer.answer = answer
        return (SettingChanges(store: store, user: "alice", session: "s", authorize: authorizer.authorize), authorizer)
    }

    static let refused = AuthError(.authenticationFailed)

    @Test func askingForWhatIsAlreadySoAsksNothing() throws {
        let (changes, authorizer) = try Self.changes(lockOn: true, answer: Self.refused)
        let toggle = try changes.toggle(true)
        #expect(toggle == .init(error: nil, enabled: true, already: true))
        #expect(authorizer.asked.isEmpty)
    }

    @Test func theToggleChangesOnlyAfterADeviceOwnerSuccess() throws {
        let (changes, authorizer) = try Self.changes(lockOn: true, answer: Self.refused)
        #expect(try changes.toggle(false) == .init(error: Self.refused, enabled: true, already: false))
        #expect(authorizer.asked == [.deviceOwner(reason: "turn the touchgate lock off")])
        #expect(try changes.store.user("alice").enabled)
        authorizer.answer = nil
        #expect(try changes.toggle(false, reason: "why") == .init(error: nil, enabled: false, already: false))
        #expect(authorizer.asked.last == .deviceOwner(reason: "why"))
        #expect(try !changes.store.user("alice").enabled)
    }

    @Test func weakeningWhileTheLockIsOnNeedsDeviceOwnerAndARefusalChangesNothing() throws {
        let (changes, authorizer) = try Self.changes(lockOn: true, answer: Self.refused)
        #expect(try changes.set(.graceSeconds, to: "60", actor: nil) == .failure(Self.refused))
        #expect(authorizer.asked == [.deviceOwner(reason: "weaken the touchgate lock (grace-seconds)")])
        #expect(try changes.store.configuration(user: "alice").graceSeconds == 0)
        authorizer.answer = nil
        guard case .success(let updated) = try changes.set(.graceSeconds, to: "60", actor: "alice") else {
            Issue.record("a device-owner success did not let the change through")
            return
        }
        #expect(updated.graceSeconds == 60)
        #expect(try changes.store.configuration(user: "alice").graceSeconds == 60)
    }

    @Test func strengtheningOrAnyChangeWhileTheLockIsOffAsksNothing() throws {
        let (on, asked) = try Self.changes(lockOn: true, answer: Self.refused)
        _ = try on.set(.maxBiometricFailures, to: "2", actor: nil)
        #expect(asked.asked.isEmpty)
        #expect(try on.store.configuration(user: "alice").maxBiometricFailures == 2)
        let (off, none) = try Self.changes(lockOn: false, answer: Self.refused)
        _ = try off.set(.graceSeconds, to: "600", actor: nil)
        #expect(none.asked.isEmpty)
        #expect(try off.store.configuration(user: "alice").graceSeconds == 600)
    }

    @Test func aValueThatDoesNotValidateThrowsAndAsksNothing() throws {
        let (changes, authorizer) = try Self.changes(lockOn: true)
        #expect(throws: Configuration.InvalidValue.self) { try changes.set(.graceSeconds, to: "-1", actor: nil) }
        #expect(authorizer.asked.isEmpty)
    }

    @Test func resetNeedsThePasscodeExceptForRoot() throws {
        let (changes, authorizer) = try Self.changes(lockOn: true, answer: Self.refused)
        #expect(try changes.reset(callerIsRoot: false) == Self.refused)
        #expect(authorizer.asked == [.passcode(purpose: .reset, reason: "reset the lockout counters")])
        #expect(try changes.reset(callerIsRoot: true) == nil)
        #expect(authorizer.asked.count == 1)
        let resets = try changes.store.auditEntries(limit: 100).filter { $0.factor == "reset" || $0.outcome.contains("reset") }
        #expect(!resets.isEmpty, "the root reset is in the log")
    }

    @Test func unenrollNeedsThePasscode() throws {
        let (changes, authorizer) = try Self.changes(lockOn: true, answer: Self.refused)
        try changes.store.setEnrolled(true, user: "alice", session: nil)
        #expect(try changes.unenroll() == Self.refused)
        #expect(try changes.store.user("alice").enrolled)
        authorizer.answer = nil
        #expect(try changes.unenroll() == nil)
        #expect(authorizer.asked == Array(repeating: .passcode(purpose: .unenroll, reason: "remove the biometric enrollment"), count: 2))
        #expect(try !changes.store.user("alice").enrolled)
    }

    /// A store opened under `policy` (the test's, not /etc/touchgate.conf) with alice's lock on.
    static func changes(policy: String, answer: AuthError? = nil) throws -> (SettingChanges, Authorizer) {
        let store = try Store(path: FilePath(temporaryStorePath()), clock: WallClock(), migrator: .embedded,
                              systemPolicy: try SystemPolicy(text: policy))
        try store.setEnabled(true, user: "alice", session: nil)
        let authorizer = Authorizer()
        authorizer.answer = answer
        return (SettingChanges(store: store, user: "alice", session: "s", authorize: authorizer.authorize), authorizer)
    }

    @Test func aValueWeakerThanTheSystemPolicyIsRefusedWithoutAskingAndChangesNothing() throws {
        let (changes, authorizer) = try Self.changes(policy: "grace-seconds = 60")
        #expect(throws: SystemPolicy.Refusal(key: .graceSeconds, value: "61", limit: "60")) {
            try changes.set(.graceSeconds, to: "61", actor: nil)
        }
        #expect(authorizer.asked.isEmpty)
        #expect(try changes.store.storedConfiguration(user: "alice").graceSeconds == 0)
        #expect(try changes.store.auditEntries(limit: 100).allSatisfy { $0.change == nil })
        // Up to the limit it weakens the user's lock as before: device-owner first.
        #expect(try changes.set(.graceSeconds, to: "60", actor: nil).map(\.graceSeconds) == .success(60))
        #expect(authorizer.asked == [.deviceOwner(reason: "weaken the touchgate lock (grace-seconds)")])
    }

    @Test func theValueInEffectDecidesWhetherAChangeWeakens() throws {
        // The store holds 600 from before the file said 60: 60 is in effect, and 30 strengthens it.
        let path = temporaryStorePath()
        try Store(path: FilePath(path), clock: WallClock(), migrator: .embedded, systemPolicy: .none).set(.graceSeconds, to: "600", user: "alice")
        let store = try Store(path: FilePath(path), clock: WallClock(), migrator: .embedded, systemPolicy: try SystemPolicy(text: "grace-seconds = 60"))
        try store.setEnabled(true, user: "alice", session: nil)
        let authorizer = Authorizer()
        authorizer.answer = Self.refused
        let changes = SettingChanges(store: store, user: "alice", session: "s", authorize: authorizer.authorize)
        #expect(try store.configuration(user: "alice").graceSeconds == 60)
        #expect(try changes.set(.graceSeconds, to: "30", actor: nil).map(\.graceSeconds) == .success(30))
        #expect(authorizer.asked.isEmpty)
    }

    @Test func aResetRecordsWhoRanIt() throws {
        let (changes, _) = try Self.changes(lockOn: true)
        _ = try changes.store.admitAttempt(.passcode, user: "alice", session: nil, purpose: .passcode, configuration: Configuration())
        #expect(try changes.reset(callerIsRoot: true, actor: "root (login uid 1000 carol, SUDO_USER carol)") == nil)
        let entry = try #require(try changes.store.auditEntries(limit: 100).last)
        #expect(entry.policy == "reset")
        #expect(entry.change == SettingChange(key: "counters", oldValue: "biometric-failures=0 passcode-failures=1",
                                              newValue: "biometric-failures=0 passcode-failures=0",
                                              actor: "root (login uid 1000 carol, SUDO_USER carol)"))
    }
}
