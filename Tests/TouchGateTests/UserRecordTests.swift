import Testing
@testable import TouchGate
@testable import TouchGateCore

/// "Is there a biometric factor", answered once for status, auth, the gate's lines and the evaluation.
@Suite struct UserRecordTests {
    @Test(arguments: [(false, "touchgate-biometric", false), (true, "touchgate-biometric", true), (true, "", false), (false, "", false)])
    func aBiometricFactorIsAnEnrollmentWithAStackNamed(enrolled: Bool, service: String, expected: Bool) {
        var record = UserRecord(name: "alice")
        record.enrolled = enrolled
        var configuration = Configuration()
        configuration.biometricService = service
        #expect(record.hasBiometricFactor(under: configuration) == expected)
        // The gate's lines say the same: no factor, the passcode alone.
        let status = GateStatus(user: "alice", session: "s", record: record, configuration: configuration, remoteHost: nil, now: 0, bootID: nil)
        #expect(status.lines.contains("  Unlock with the passcode of alice.") == !expected)
        // And the evaluation's availability (a local session, the stack there, no failures): not enrolled exactly when
        // there is no factor, even with a stack said to exist for an empty service name.
        let availability = EvaluationStateMachine.biometricAvailability(
            record: record, configuration: configuration, remoteHost: nil, stackExists: true)
        #expect((availability == .biometryNotEnrolled) == !expected, "\(String(describing: availability))")
        #expect(availability == nil || availability == .biometryNotEnrolled)
    }
}
