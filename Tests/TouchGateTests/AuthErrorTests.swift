import Testing
@testable import TouchGate
internal import CPAM

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
        (PAM_USER_UNKNOWN, .biometric, .biometryNotEnrolled),
        (PAM_USER_UNKNOWN, .passcode, .passcodeNotSet),
        (PAM_AUTHINFO_UNAVAIL, .passcode, .passcodeNotSet),
        (PAM_AUTH_ERR, .passcode, .authenticationFailed),
        (PAM_MAXTRIES, .passcode, .authenticationFailed),
        (PAM_SYSTEM_ERR, .passcode, .authenticationFailed),
        (PAM_ABORT, .biometric, .authenticationFailed),
        (PAM_CRED_INSUFFICIENT, .biometric, .authenticationFailed),
    ])
    func pamStatusMapsToOutcome(status: Int32, factor: Factor, code: AuthError.Code) {
        #expect(AuthError(pamStatus: status, factor: factor)?.code == code)
    }

    @Test func successMapsToNoError() {
        #expect(AuthError(pamStatus: PAM_SUCCESS, factor: .passcode) == nil)
        #expect(AuthError(pamStatus: PAM_SUCCESS, factor: .biometric) == nil)
    }

    @Test func onlyVerdictsOnAGivenCredentialCount() {
        #expect(AuthError.isCountedFailure(pamStatus: PAM_AUTH_ERR))
        #expect(AuthError.isCountedFailure(pamStatus: PAM_SYSTEM_ERR))
        #expect(!AuthError.isCountedFailure(pamStatus: PAM_USER_UNKNOWN))
        #expect(!AuthError.isCountedFailure(pamStatus: PAM_AUTHINFO_UNAVAIL))
        #expect(!AuthError.isCountedFailure(pamStatus: PAM_SUCCESS))
    }
}
