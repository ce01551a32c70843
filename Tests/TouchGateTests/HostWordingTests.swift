import Testing
@testable import TouchGate
@testable import TouchGateCore

/// What the PAM helper shows a host of the evaluation's events: nothing for a password alone, a
/// biometric try's line only once its stack shows something, counts only when not silent.
struct HostWordingTests {
    private func step(_ factor: Factor) -> PromptStep {
        PromptStep(factor: factor, attempt: 1, tries: 1, reason: "authenticate for sudo", user: "alice", enterTitle: nil, cancelTitle: nil)
    }

    @Test func aPasswordAloneShowsNothingOfTouchgates() {
        let wording = HostWording(silent: false)
        #expect(wording.lines(for: .tryStarted(step(.passcode))).isEmpty)
        #expect(wording.takePending().isEmpty)
    }

    /// A rule that kept the finger from being tried: one line above the password prompt, at its
    /// first try, even when silent (sudo's PAM_SILENT); never to a remote host, nor to a user
    /// whose finger never unlocked.
    @Test(arguments: [false, true])
    func aRulesReasonIsSaidAboveTheFirstPasswordPrompt(silent: Bool) {
        var first = step(.passcode)
        first.passcodeRequired = .restart
        #expect(HostWording(silent: silent).lines(for: .tryStarted(first)) == ["touchgate: Your passcode is required after a restart."])
        #expect(HostWording(silent: silent, remote: true).lines(for: .tryStarted(first)).isEmpty)
        var second = first
        second.attempt = 2
        #expect(HostWording(silent: silent).lines(for: .tryStarted(second)).isEmpty)
        // A user who never unlocked with a finger is not told why a reader was not asked.
        let neverUsed = HostWording(silent: silent)
        neverUsed.fingerUsed = false
        #expect(neverUsed.lines(for: .tryStarted(first)).isEmpty)
    }

    @Test func aBiometricTryThatShowedNothingEndsUnseen() {
        let wording = HostWording(silent: false)
        #expect(wording.lines(for: .tryStarted(step(.biometric))).isEmpty)
        // No reader: the stack said nothing, and the try's end says nothing either.
        #expect(wording.lines(for: .factorUnavailable(.biometric, .biometryNotAvailable)).isEmpty)
        #expect(wording.takePending().isEmpty)
    }

    @Test func aBiometricTryThatShowedSomethingIsIntroducedAndItsEndExplained() {
        let wording = HostWording(silent: false)
        _ = wording.lines(for: .tryStarted(step(.biometric)))
        // What the prompt source shows before the stack's first line.
        #expect(wording.takePending() == ["touchgate: authenticate for sudo"])
        #expect(wording.takePending().isEmpty, "once")
        #expect(wording.lines(for: .factorUnavailable(.biometric, .biometryNotAvailable)).count == 1)
    }

    @Test(arguments: [false, true])
    func countsAreShownUnlessSilent(silent: Bool) {
        let wording = HostWording(silent: silent)
        let lines = wording.lines(for: .tryFailed(.passcode, AttemptsLeft(inEvaluation: 0, beforeStop: 3, delaySeconds: 60)))
        #expect(lines == (silent ? [] : ["touchgate: Wrong passcode; 3 tries left before a wait of 60 s."]))
    }

    @Test func aWrongScanIsSaidWithoutItsCountWhenSilent() {
        let left = AttemptsLeft(inEvaluation: 0, beforeStop: 2)
        #expect(HostWording(silent: true).lines(for: .tryFailed(.biometric, left)) == ["touchgate: Not recognized."])
        #expect(HostWording(silent: false).lines(for: .tryFailed(.biometric, left))
            == ["touchgate: Not recognized; 2 biometric tries left before a lockout."])
    }

    @Test func theHelperShowsNoCancelAndNoDelayWhenSilent() {
        #expect(!PAMHelper.shows(AuthError(.userCancel), silent: false))
        #expect(!PAMHelper.shows(AuthError(.authenticationFailed), silent: false))
        #expect(PAMHelper.shows(AuthError(.authenticationFailed, retryAfterSeconds: 60), silent: false))
        #expect(!PAMHelper.shows(AuthError(.authenticationFailed, retryAfterSeconds: 60), silent: true))
        #expect(PAMHelper.shows(AuthError(.biometryLockout), silent: true))
    }
}
