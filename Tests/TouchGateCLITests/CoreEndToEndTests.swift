import Foundation
import Testing

/// Every outcome the CLI can produce, end to end: the real binary, real libpam (pam_wrapper and
/// the stacks from `pam/test`), a real SQLite store. Each test checks the exit status, the JSON
/// (`outcome`, `code`, `policy`) and what reached PAM.
@Suite struct CoreOutcomeTests {
    static let biometric = "touchgate-biometric"
    static let passcode = "touchgate"

    @Test func successUnderBothPolicies() throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        let before = world.calls(Self.biometric)

        let biometrics = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        CoreExpect.outcome(biometrics, "success", policy: "biometrics")
        #expect(world.calls(Self.biometric) == before + 1)

        let deviceOwner = try world.run(["-S", "--json", "auth"], input: "alice-finger\n")
        CoreExpect.outcome(deviceOwner, "success", policy: "device-owner")
        #expect(world.calls(Self.biometric) == before + 2)

        // Without --json: nothing on stdout, nothing on stderr but the prompts.
        let plain = try world.run(["-S", "auth", "--policy=biometrics"], input: "alice-finger\n")
        #expect(plain.status == 0, "\(plain)")
        #expect(plain.stdout.isEmpty, "\(plain)")
    }

    @Test func fallbackUnderDeviceOwnerSwitchesToThePasscode() throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        let passcodeBefore = world.calls(Self.passcode)
        let result = try world.run(["-S", "--json", "auth"], input: "\nalice-passcode\n")
        CoreExpect.outcome(result, "success", policy: "device-owner")
        #expect(world.calls(Self.passcode) == passcodeBefore + 1)
        #expect(result.stderr.contains("passcode for alice"), "\(result)")
        // The fallback is not a failure.
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 0)
    }

    @Test func wrongPasscodeUnderDeviceOwnerFailsAfterThreeTries() throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        let before = world.calls(Self.passcode)
        let result = try world.run(["-S", "--json", "auth"], input: "\nnope-1\nnope-2\nnope-3\nalice-passcode\n")
        CoreExpect.outcome(result, "authenticationFailed", policy: "device-owner")
        #expect(result.json?["retryAfterSeconds"] == nil, "\(result)")
        #expect(world.calls(Self.passcode) == before + 3)
        #expect(try world.statusJSON()["passcodeFailures"] as? Int == 3)
    }

    @Test func authenticationFailedAfterThreeBiometricTries() throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        let before = world.calls(Self.biometric)
        // A fourth answer, the right one, is there to be read if a fourth try were allowed.
        let result = try world.run(["-S", "--json", "auth", "--policy", "biometrics"],
                                   input: "wrong-1\nwrong-2\nwrong-3\nalice-finger\n")
        CoreExpect.outcome(result, "authenticationFailed", policy: "biometrics")
        #expect(world.calls(Self.biometric) == before + 3)
        let status = try world.statusJSON()
        #expect(status["biometricFailures"] as? Int == 3)
        #expect(status["biometryLockedOut"] as? Bool == false)
    }

    @Test func biometricTriesPerEvaluationIsConfigurable() throws {
        let world = try TestEnvironment()
        try world.setConfig("biometric-tries-per-evaluation", "2")
        try world.enableAndEnroll()
        let before = world.calls(Self.biometric)
        let result = try world.run(["-S", "--json", "auth", "--policy", "biometrics"],
                                   input: "wrong-1\nwrong-2\nalice-finger\n")
        CoreExpect.outcome(result, "authenticationFailed", policy: "biometrics")
        #expect(world.calls(Self.biometric) == before + 2)
    }

    @Test func endOfInputAtAPromptIsUserCancel() throws {
        let world = try TestEnvironment()
        // Not enrolled: the passcode prompt.
        let passcode = try world.run(["-S", "--json", "auth"], input: "")
        CoreExpect.outcome(passcode, "userCancel", policy: "device-owner")
        #expect(try world.statusJSON()["passcodeFailures"] as? Int == 0)

        try world.enableAndEnroll()
        // The biometric prompt.
        let biometric = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "")
        CoreExpect.outcome(biometric, "userCancel", policy: "biometrics")
        // After one wrong answer, end of input still cancels; only the wrong answer counts.
        let afterWrong = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "wrong\n")
        CoreExpect.outcome(afterWrong, "userCancel", policy: "biometrics")
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 1)
    }

    @Test func sigintAtAPromptIsUserCancel() throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        let process = try world.start(["-S", "--json", "auth"])
        try process.waitForError(containing: "Password:")
        process.signal(SIGINT)
        let result = try process.wait(timeout: 20)
        CoreExpect.outcome(result, "userCancel", policy: "device-owner")
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 0)
    }

    @Test(arguments: [SIGTERM, SIGHUP])
    func terminationSignalAtAPromptIsSystemCancel(signal: Int32) throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        let process = try world.start(["-S", "--json", "auth", "--policy", "biometrics"])
        try process.waitForError(containing: "Password:")
        process.signal(signal)
        let result = try process.wait(timeout: 20)
        CoreExpect.outcome(result, "systemCancel", policy: "biometrics")
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 0)
    }

    /// The signal mask survives exec: a parent that blocks these signals must not make the prompt
    /// uncancellable (the binary unblocks the signals it relays).
    @Test(arguments: [(SIGINT, "userCancel"), (SIGTERM, "systemCancel"), (SIGHUP, "systemCancel")])
    func signalsBlockedByTheParentStillCancel(signal: Int32, outcome: String) throws {
        let world = try TestEnvironment()
        var blocked = sigset_t()
        var saved = sigset_t()
        sigemptyset(&blocked)
        for relayed in [SIGINT, SIGTERM, SIGHUP, SIGUSR1] { sigaddset(&blocked, relayed) }
        pthread_sigmask(SIG_BLOCK, &blocked, &saved)
        let started = Result { try world.start(["-S", "--json", "auth"], inheritSignalMask: true) }
        // A process that never changes its mask shows what every child started this way inherits.
        let witness = Result { try RunningProcess(["/bin/cat"], environment: [:], inheritSignalMask: true) }
        pthread_sigmask(SIG_SETMASK, &saved, nil)
        let process = try started.get()
        let cat = try witness.get()
        let status = try String(contentsOfFile: "/proc/\(cat.pid)/status", encoding: .utf8)
        cat.closeInput()
        _ = try cat.wait()
        let mask = status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }
            .flatMap { UInt64($0.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16) } ?? 0
        #expect(mask & (1 << UInt64(signal - 1)) != 0, "children start with the signal blocked: \(status)")
        try process.waitForError(containing: "Password:")
        process.signal(signal)
        let result = try process.wait(timeout: 20)
        CoreExpect.outcome(result, outcome, policy: "device-owner")
    }

    @Test func sigusr1AtAPromptIsAppCancel() throws {
        // SIGUSR1 is what `touchgate event did-enter-background` sends to a prompting process.
        let world = try TestEnvironment()
        let process = try world.start(["-S", "--json", "auth"])
        try process.waitForError(containing: "Password:")
        process.signal(SIGUSR1)
        let result = try process.wait(timeout: 20)
        CoreExpect.outcome(result, "appCancel", policy: "device-owner")
    }

    @Test func emptyAnswerUnderBiometricsIsUserFallback() throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        let before = world.calls(Self.passcode)
        let result = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "\nalice-passcode\n")
        CoreExpect.outcome(result, "userFallback", policy: "biometrics")
        #expect(world.calls(Self.passcode) == before, "biometrics never asks for the passcode")
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 0)
    }

    @Test func permitStackIsPasscodeNotSetAndNeverUnlocks() throws {
        let world = try TestEnvironment()
        try world.setConfig("passcode-service", "touchgate-permit")
        let auth = try world.run(["-S", "--json", "auth"], input: "anything\n")
        CoreExpect.outcome(auth, "passcodeNotSet", policy: "device-owner")
        let enable = try world.run(["-S", "--json", "enable"], input: "anything\n")
        CoreExpect.outcome(enable, "passcodeNotSet", policy: "device-owner")
        #expect(enable.json?["enabled"] as? Bool == false)
        #expect(world.calls("touchgate-permit") == 2)
        #expect(try world.statusJSON()["enabled"] as? Bool == false)
        #expect(try world.statusJSON()["passcodeFailures"] as? Int == 0)
    }

    @Test func unixStackWithAnUnknownUserIsPasscodeNotSet() throws {
        let world = try TestEnvironment()
        world.user = TestEnvironment.absentAccount
        try world.setConfig("passcode-service", "touchgate-unix")
        let result = try world.run(["-S", "--json", "auth"], input: "some-password\n")
        CoreExpect.outcome(result, "passcodeNotSet", policy: "device-owner")
        #expect(world.calls("touchgate-unix") == 1)
        #expect(try world.statusJSON()["passcodeFailures"] as? Int == 0)
    }

    @Test func missingPasscodeServiceIsPasscodeNotSet() throws {
        let world = try TestEnvironment()
        try world.setConfig("passcode-service", "touchgate-does-not-exist")
        let result = try world.run(["-S", "--json", "auth"], input: "alice-passcode\n")
        CoreExpect.outcome(result, "passcodeNotSet", policy: "device-owner")
        // PAM's `other` stack must not be used in its place.
        #expect(world.calls("other") == 0)
        let check = try world.run(["--json", "can-evaluate"])
        CoreExpect.outcome(check, "passcodeNotSet", policy: "device-owner")
    }

    @Test(arguments: [("", 0), ("touchgate-does-not-exist", 0), ("touchgate-unavailable", 1)])
    func biometryNotAvailable(service: String, expectedCalls: Int) throws {
        let world = try TestEnvironment()
        try world.enrollWithoutEnabling()
        try world.expectUncountedBiometricOutcome("biometryNotAvailable", service: service,
                                                  calls: service.isEmpty ? nil : expectedCalls)
        // Under deviceOwner the passcode takes over.
        let deviceOwner = try world.run(["-S", "--json", "auth"], input: "alice-passcode\n")
        CoreExpect.outcome(deviceOwner, "success", policy: "device-owner")
        if expectedCalls == 0 {
            let check = try world.run(["--json", "can-evaluate", "--policy", "biometrics"])
            CoreExpect.outcome(check, "biometryNotAvailable", policy: "biometrics")
        }
    }

    @Test func unavailablePasscodeStackIsPasscodeNotSet() throws {
        // pam_matrix without its password file: PAM_AUTHINFO_UNAVAIL.
        let world = try TestEnvironment()
        try world.setConfig("passcode-service", "touchgate-unavailable")
        let result = try world.run(["-S", "--json", "enable"], input: "alice-passcode\n")
        CoreExpect.outcome(result, "passcodeNotSet", policy: "device-owner")
        #expect(result.json?["enabled"] as? Bool == false)
        #expect(world.calls("touchgate-unavailable") == 1)
        #expect(try world.statusJSON()["passcodeFailures"] as? Int == 0)
    }

    @Test func stackWithAMissingModuleIsBiometryNotAvailable() throws {
        // A module that cannot be loaded: PAM_MODULE_UNKNOWN from pam_authenticate.
        let world = try TestEnvironment()
        let template = try String(contentsOf: world.pamDirectory.appendingPathComponent("touchgate-biometric"), encoding: .utf8)
        let broken = template.replacingOccurrences(of: "count touchgate-biometric", with: "count touchgate-nomodule")
            .replacingOccurrences(of: "pam_matrix.so", with: "pam_touchgate_no_such_module.so")
        #expect(broken.contains("pam_touchgate_no_such_module.so"))
        try broken.write(to: world.pamDirectory.appendingPathComponent("touchgate-nomodule"), atomically: true, encoding: .utf8)
        try world.enrollWithoutEnabling()
        try world.expectUncountedBiometricOutcome("biometryNotAvailable", service: "touchgate-nomodule", calls: 1)
    }

    @Test func enrollNeedsThePasscodeAndOneBiometricSuccess() throws {
        let world = try TestEnvironment()
        let wrongPasscode = try world.run(["-S", "--json", "enroll"], input: "bad-1\nbad-2\nbad-3\nalice-finger\n")
        CoreExpect.outcome(wrongPasscode, "authenticationFailed", policy: "enroll")
        #expect(wrongPasscode.json?["enrolled"] as? Bool == false)
        #expect(world.calls(Self.biometric) == 0, "no biometric step before the passcode succeeds")
        let wrongFinger = try world.run(["-S", "--json", "enroll"], input: "alice-passcode\nw1\nw2\nw3\n")
        CoreExpect.outcome(wrongFinger, "authenticationFailed", policy: "enroll")
        #expect(wrongFinger.json?["enrolled"] as? Bool == false)
        let cancelled = try world.run(["-S", "--json", "enroll"], input: "alice-passcode\n")
        CoreExpect.outcome(cancelled, "userCancel", policy: "enroll")
        var status = try world.statusJSON()
        #expect(status["enrolled"] as? Bool == false)
        #expect(status["domainState"] is NSNull)

        let enroll = try world.run(["-S", "--json", "enroll"], input: "alice-passcode\nalice-finger\n")
        CoreExpect.outcome(enroll, "success", policy: "enroll")
        #expect(enroll.json?["enrolled"] as? Bool == true)
        status = try world.statusJSON()
        #expect(status["enrolled"] as? Bool == true)
        let firstState = try #require(status["domainState"] as? String)
        // Enrolling again changes the domain state, as a new finger does on iOS.
        let again = try world.run(["-S", "--json", "enroll"], input: "alice-passcode\nalice-finger\n")
        CoreExpect.outcome(again, "success", policy: "enroll")
        #expect(try world.statusJSON()["domainState"] as? String != firstState)
    }

    @Test(arguments: [(SIGINT, "userCancel"), (SIGTERM, "systemCancel")])
    func signalWhileTheModuleWorksCancelsWithoutASuccess(signal: Int32, outcome: String) throws {
        let world = try TestEnvironment()
        try world.enrollWithoutEnabling()
        try world.setConfig("biometric-service", "touchgate-slow")
        let process = try world.start(["-S", "--json", "auth", "--policy", "biometrics"])
        // The right answer is already waiting; the signal arrives while the stack sleeps.
        process.write("alice-finger\n")
        try world.waitFor("the slow stack to be reached") { world.calls("touchgate-slow") == 1 }
        process.signal(signal)
        let result = try process.wait(timeout: 20)
        CoreExpect.outcome(result, outcome, policy: "biometrics")
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 0)
    }

    @Test func storeAndUserOptionsOverrideTheEnvironment() throws {
        let world = try TestEnvironment()
        let other = world.directory.appendingPathComponent("other/store.sqlite").path
        let enable = try world.run(["-S", "--json", "--store", other, "--user", "bob", "enable"], input: "bob-passcode\n")
        CoreExpect.outcome(enable, "success", policy: "device-owner")
        #expect(FileManager.default.fileExists(atPath: other))
        #expect(!FileManager.default.fileExists(atPath: world.storePath), "TOUCHGATE_STORE was overridden")
        #expect(try world.sqlite("SELECT name || ':' || enabled FROM users", path: other) == "bob:1")
        let status = try world.run(["--json", "status", "--store=\(other)", "--user=bob"])
        #expect(status.json?["user"] as? String == "bob")
        #expect(status.json?["store"] as? String == other)
        #expect(status.json?["enabled"] as? Bool == true)
    }

    @Test func notEnrolledIsBiometryNotEnrolledWithoutCallingPAM() throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        world.user = "bob"
        let result = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "bob-finger\n")
        CoreExpect.outcome(result, "biometryNotEnrolled", policy: "biometrics")
        #expect(world.calls(Self.biometric) == 1, "only alice's enrollment reached the biometric stack")
        let check = try world.run(["--json", "can-evaluate", "--policy", "biometrics"])
        CoreExpect.outcome(check, "biometryNotEnrolled", policy: "biometrics")
    }

    @Test func unenrollMakesBiometryNotEnrolled() throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        let unenroll = try world.run(["-S", "--json", "unenroll"], input: "alice-passcode\n")
        #expect(unenroll.status == 0, "\(unenroll)")
        #expect(unenroll.json?["enrolled"] as? Bool == false)
        let result = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        CoreExpect.outcome(result, "biometryNotEnrolled", policy: "biometrics")
    }

    @Test func stackAnsweringUserUnknownIsBiometryNotEnrolled() throws {
        let world = try TestEnvironment()
        world.user = TestEnvironment.absentAccount
        _ = try world.statusJSON()
        // Enrolled as far as touchgate knows; pam_unix does not know the user: PAM_USER_UNKNOWN.
        _ = try world.sqlite("INSERT INTO users (name, enrolled, domain_state) VALUES ('\(world.user)', 1, 'x')")
        try world.passcodeSucceededInThisBoot()
        try world.expectUncountedBiometricOutcome("biometryNotEnrolled", service: "touchgate-unix", calls: 1,
                                                  input: "some-finger\n")
    }

    @Test func noTerminalAndNoStdinFlagIsNotInteractive() throws {
        let world = try TestEnvironment()
        // Passcode prompt (not enrolled).
        let passcode = try world.runWithoutTerminal(["--json", "auth"])
        CoreExpect.outcome(passcode, "notInteractive", policy: "device-owner")
        try world.enableAndEnroll()
        // Biometric prompt.
        let biometric = try world.runWithoutTerminal(["--json", "auth", "--policy", "biometrics"])
        CoreExpect.outcome(biometric, "notInteractive", policy: "biometrics")
        let enable = try world.runWithoutTerminal(["--json", "disable"])
        CoreExpect.outcome(enable, "notInteractive", policy: "device-owner")
        let status = try world.statusJSON()
        #expect(status["enabled"] as? Bool == true)
        #expect(status["biometricFailures"] as? Int == 0)
        #expect(status["passcodeFailures"] as? Int == 0)
    }

    @Test func noInteractionWhereAPromptIsNeededIsNotInteractive() throws {
        let world = try TestEnvironment()
        let passcode = try world.run(["-S", "--json", "auth", "--no-interaction"], input: "alice-passcode\n")
        CoreExpect.outcome(passcode, "notInteractive", policy: "device-owner")
        try world.enableAndEnroll()
        let biometric = try world.run(["-S", "--json", "--no-interaction", "auth", "--policy", "biometrics"],
                                      input: "alice-finger\n")
        CoreExpect.outcome(biometric, "notInteractive", policy: "biometrics")
        let status = try world.statusJSON()
        #expect(status["biometricFailures"] as? Int == 0)
        #expect(status["passcodeFailures"] as? Int == 0)
    }

    /// `--pam-confdir DIR` reads the stacks through `pam_start_confdir`, with no pam_wrapper.
    @Test func pamConfdirWorksWithoutPAMWrapper() throws {
        // A plain world, run without pam_wrapper's variables: only the flag points at the stacks.
        let world = try TestEnvironment()
        let confdir = world.pamDirectory.path
        if !FileManager.default.fileExists(atPath: "/etc/pam.d/touchgate") {
            let withoutFlag = try world.runWithoutPAMWrapper(["-S", "--json", "auth"], input: "alice-passcode\n")
            CoreExpect.outcome(withoutFlag, "passcodeNotSet", policy: "device-owner")
        }
        let enable = try world.runWithoutPAMWrapper(["--pam-confdir", confdir, "-S", "--json", "enable"],
                                                    input: "alice-passcode\n")
        CoreExpect.outcome(enable, "success", policy: "device-owner")
        #expect(world.calls(Self.passcode) == 1)
        let enroll = try world.runWithoutPAMWrapper(["--pam-confdir=\(confdir)", "-S", "enroll"],
                                                    input: "alice-passcode\nalice-finger\n")
        #expect(enroll.status == 0, "\(enroll)")
        let wrong = try world.runWithoutPAMWrapper(["-S", "--json", "auth", "--policy", "biometrics", "--pam-confdir", confdir],
                                                   input: "a\nb\nc\n")
        CoreExpect.outcome(wrong, "authenticationFailed", policy: "biometrics")
        let right = try world.runWithoutPAMWrapper(["-S", "--json", "auth", "--pam-confdir", confdir], input: "alice-finger\n")
        CoreExpect.outcome(right, "success", policy: "device-owner")
        #expect(world.calls(Self.biometric) == 5)
        // A service missing from DIR is missing, whatever /etc/pam.d holds.
        // (Changing the stack while the lock is on needs a success: the finger.)
        let change = try world.runWithoutPAMWrapper(["--pam-confdir", confdir, "-S", "config", "set", "biometric-service", "login"],
                                                    input: "alice-finger\n")
        #expect(change.status == 0, "\(change)")
        let missing = try world.runWithoutPAMWrapper(["--pam-confdir", confdir, "-S", "--json", "auth", "--policy", "biometrics"],
                                                     input: "alice-finger\n")
        CoreExpect.outcome(missing, "biometryNotAvailable", policy: "biometrics")
    }
}
