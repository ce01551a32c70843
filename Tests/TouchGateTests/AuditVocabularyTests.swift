internal import CPAM
import Testing
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGatePAM

/// The audit log's typed vocabulary keeps the texts stores already hold (the schema is unchanged),
/// reads each back as itself, and refuses text that is none of them.
@Suite struct AuditVocabularyTests {
    @Test func theStoredTextsAreTheOnesStoresAlreadyHold() {
        #expect(AuditFactor.allCases.map(\.rawValue) == ["biometric", "passcode", "reuse", "lifecycle", "setting"])
        #expect(AuditFactor(.biometric) == .biometric && AuditFactor(.passcode) == .passcode)
        let policies: [(AuditPolicy, String)] = [
            (.evaluation(.deviceOwner), "device-owner"), (.evaluation(.biometrics), "biometrics"), (.passcode, "passcode"),
            (.enroll, "enroll"), (.unenroll, "unenroll"), (.reset, "reset"), (.enable, "enable"), (.disable, "disable"),
            (.config, "config"), (.event, "event"), (.screenLock, "screen-lock"), (.suspend, "suspend"), (.lock, "lock"),
        ]
        for (policy, text) in policies {
            #expect(policy.rawValue == text)
            #expect(AuditPolicy(rawValue: text) == policy)
        }
        let outcomes: [(AuditOutcome, String, Int)] = [
            (.success, "success", 0), (.pending, "pending", 0), (.throttled, "throttled", -1), (.changed, "changed", 0),
            (.enabled, "enabled", 0), (.disabled, "disabled", 0), (.enrolled, "enrolled", 0),
            (.unenrolled, "unenrolled", 0), (.reset, "reset", 0),
            (.error(.biometryLockout), "biometryLockout", -8), (.error(.userCancel), "userCancel", -2),
            (.event(.didEnterBackground), "did-enter-background", 0),
        ]
        for (outcome, text, code) in outcomes {
            #expect(outcome.rawValue == text && outcome.code == code, "\(outcome)")
            #expect(AuditOutcome(rawValue: text) == outcome)
        }
        for code in AuthError.Code.allCases { #expect(AuditOutcome(rawValue: code.name) == .error(code)) }
        for event in LifecycleEvent.allCases { #expect(AuditOutcome(rawValue: event.rawValue) == .event(event)) }
    }

    @Test func textOutsideTheVocabularyIsRefused() {
        for text in ["", "Success", "lifecycle", "unknown(-99)", "screen_lock"] {
            #expect(AuditOutcome(rawValue: text) == nil, "\(text)")
        }
        for text in ["", "Event", "gate", "screen_lock", "test"] { #expect(AuditPolicy(rawValue: text) == nil, "\(text)") }
    }

    /// The worker's payloads, written and read in one place, read back as written.
    @Test func theWorkersPayloadsRoundTrip() {
        for end in [PAMTransaction.End(started: true, status: PAM_SUCCESS), .init(started: true, status: PAM_MAXTRIES),
                    .init(started: false, status: PAM_ABORT), .init(started: true, status: -1)] {
            #expect(WorkerChannel.result(WorkerChannel.resultPayload(end)) == end)
        }
        #expect(WorkerChannel.result([1, 0, 0]) == nil)
        #expect(PAMTransaction.End(started: false, status: PAM_SUCCESS).outcome == .notStarted)
        let text: [UInt8] = Array("Swipe your right index finger".utf8)
        for style in [PAMMessageStyle.question(echo: false), .question(echo: true), .information] {
            let payload = text.withUnsafeBufferPointer { WorkerChannel.messagePayload(style: style, text: $0) }
            let read = payload.flatMap(WorkerChannel.message)
            #expect(read?.style == style && read.map { Array($0.text) } == text, "\(style)")
        }
        #expect(text.withUnsafeBufferPointer { WorkerChannel.messagePayload(style: .unsupported, text: $0) } == nil)
        #expect(WorkerChannel.message([]) == nil)
        #expect(PAMMessageStyle(pamStyle: PAM_ERROR_MSG) == .information)
        #expect(PAMMessageStyle(pamStyle: PAM_BINARY_PROMPT) == .unsupported)
    }
}
