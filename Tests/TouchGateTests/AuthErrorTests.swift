import Testing
@testable import TouchGate
internal import CPAM
@testable import TouchGateCore

@Suite struct AuthErrorTests {
    @Test func rawValuesMatchLAError() {
        let expected: [(AuthError.Code, Int, String)] = [
            (.authenticationFailed, -1, "authenticationFailed"), (.userCancel, -2, "userCancel"),
            (.userFallback, -3, "userFallback"), (.systemCancel, -4, "systemCancel"),
            (.passcodeNotSet, -5, "passcodeNotSet"), (.biometryNotAvailable, -6, "biometryNotAvailable"),
            (.biometryNotEnrolled, -7, "biometryNotEnrolled"), (.biometryLockout, -8, "biometryLockout"),
            (.appCancel, -9, "appCancel"), (.invalidContext, -10, "invalidContext"),
            (.notInteractive, -1004, "notInteractive"),
        ]
        #expect(AuthError.Code.allCases.count == expected.count)
        for (code, raw, name) in expected {
            #expect(code.rawValue == raw)
            #expect(code.name == name)
            #expect(AuthError.Code(name: name) == code)
            #expect(!code.message.isEmpty)
        }
    }

    @Test func codesMatchErrorsInCatchAndSwitch() {
        let error: any Error = AuthError(.biometryLockout)
        var matched = false
        switch error {
        case AuthError.biometryLockout: matched = true
        default: matched = false
        }
        #expect(matched)
        #expect(!(AuthError.userCancel ~= error))
    }

    @Test func throttledMessageNamesTheWait() {
        let error = AuthError(.authenticationFailed, retryAfterSeconds: 60)
        #expect(error.message.contains("60"))
        #expect(AuthError.errorDomain == "org.touchgate.AuthError")
    }

    @Test(arguments: [
        (PAM_AUTH_ERR, Factor.biometric, AuthError.Code.authenticationFailed),
        (PAM_AUTHINFO_UNAVAIL, .biometric, .biometryNotAvailable),
        (PAM_MODULE_UNKNOWN, .biometric, .biometryNotAvailable),
        (PAM_OPEN_ERR, .biometric, .biometryNotAvailable),
        (PAM_USER_UNKNOWN, .biometric, .biometryNotEnrolled),
        (PAM_USER_UNKNOWN, .passcode, .passcodeNotSet),
        (PAM_AUTHINFO_UNAVAIL, .passcode, .passcodeNotSet),
        (PAM_MODULE_UNKNOWN, .passcode, .authenticationFailed),
        (PAM_AUTH_ERR, .passcode, .authenticationFailed),
        (PAM_MAXTRIES, .passcode, .authenticationFailed),
        (PAM_MAXTRIES, .biometric, .authenticationFailed),
        (PAM_SYSTEM_ERR, .passcode, .authenticationFailed),
        (PAM_ABORT, .biometric, .authenticationFailed),
        (PAM_CRED_INSUFFICIENT, .biometric, .authenticationFailed),
        (PAM_CONV_ERR, .biometric, .authenticationFailed),
    ])
    func pamStatusMapsToOutcome(status: Int32, factor: Factor, code: AuthError.Code) {
        #expect(PAMOutcome(status: status).errorCode(for: factor) == code)
    }

    @Test func successMapsToNoError() {
        #expect(PAMOutcome(status: PAM_SUCCESS) == .success)
        #expect(PAMOutcome(status: PAM_SUCCESS).errorCode(for: .passcode) == nil)
        #expect(PAMOutcome(status: PAM_SUCCESS).errorCode(for: .biometric) == nil)
    }

    /// Each status is read into one case; a status no case names fails closed, keeping the raw value.
    @Test func statusesAreReadIntoOneCase() {
        #expect(PAMOutcome(status: PAM_AUTH_ERR) == .noMatch)
        #expect(PAMOutcome(status: PAM_MAXTRIES) == .noMatch)
        #expect(PAMOutcome(status: PAM_AUTHINFO_UNAVAIL) == .unavailable)
        #expect(PAMOutcome(status: PAM_SYMBOL_ERR) == .moduleMissing)
        #expect(PAMOutcome(status: PAM_USER_UNKNOWN) == .userUnknown)
        #expect(PAMOutcome(status: PAM_SYSTEM_ERR) == .failed(PAM_SYSTEM_ERR))
        #expect(PAMOutcome(status: 9999) == .failed(9999))
        for status in [PAM_SUCCESS, PAM_AUTH_ERR, PAM_AUTHINFO_UNAVAIL, PAM_USER_UNKNOWN, PAM_SYSTEM_ERR, PAM_CONV_ERR] {
            #expect(PAMOutcome(status: PAMOutcome(status: status).status) == PAMOutcome(status: status))
        }
        #expect(PAMOutcome.notStarted.errorCode(for: .biometric) == .biometryNotAvailable)
    }

    @Test func onlyVerdictsOnAGivenCredentialCount() {
        #expect(PAMOutcome(status: PAM_AUTH_ERR).isCountedFailure)
        #expect(PAMOutcome(status: PAM_MAXTRIES).isCountedFailure)
        #expect(PAMOutcome(status: PAM_SYSTEM_ERR).isCountedFailure)
        #expect(!PAMOutcome(status: PAM_USER_UNKNOWN).isCountedFailure)
        #expect(!PAMOutcome(status: PAM_AUTHINFO_UNAVAIL).isCountedFailure)
        #expect(!PAMOutcome(status: PAM_MODULE_UNKNOWN).isCountedFailure)
        #expect(!PAMOutcome(status: PAM_SUCCESS).isCountedFailure)
        #expect(!PAMOutcome.notStarted.isCountedFailure)
    }
}
