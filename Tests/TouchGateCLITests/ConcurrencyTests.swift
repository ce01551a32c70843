import Foundation
import Testing

/// The write-ahead count: attempts are admitted by the store before PAM sees them, in one
/// `BEGIN IMMEDIATE` transaction with the lockout check.
@Suite struct CoreConcurrencyTests {
    static let biometric = "touchgate-biometric"

    @Test func thirtyProcessesAtOnceNeverPassMoreThanTheAllowedAttemptsToPAM() throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        let before = world.calls(Self.biometric)

        let processes = try (0..<30).map { index in
            let process = try world.start(["-S", "--json", "auth", "--policy", "biometrics"])
            process.write("wrong-\(index)-a\nwrong-\(index)-b\nwrong-\(index)-c\n")
            process.closeInput()
            return process
        }
        let results = try processes.map { try $0.wait(timeout: 90) }

        #expect(world.calls(Self.biometric) - before == 5, "max-biometric-failures attempts reach PAM, no more")
        var outcomes: [String: Int] = [:]
        for result in results {
            outcomes[result.jsonOutcome ?? "none: \(result)", default: 0] += 1
            if result.jsonOutcome == "biometryLockout" {
                CoreExpect.outcome(result, "biometryLockout", policy: "biometrics")
            } else {
                CoreExpect.outcome(result, "authenticationFailed", policy: "biometrics")
            }
        }
        // Five failures fill at most one whole evaluation of three tries; everyone else is locked out.
        #expect(outcomes["authenticationFailed", default: 0] <= 1, "\(outcomes)")
        #expect(outcomes["biometryLockout", default: 0] >= 29, "\(outcomes)")
        #expect(outcomes.values.reduce(0, +) == 30)

        let status = try world.statusJSON()
        #expect(status["biometricFailures"] as? Int == 5)
        #expect(status["biometryLockedOut"] as? Bool == true)
        let later = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        CoreExpect.outcome(later, "biometryLockout", policy: "biometrics")
        #expect(world.calls(Self.biometric) - before == 5)
        #expect(try world.sqlite("SELECT count(*) FROM audit WHERE outcome = 'pending'") == "0")
        #expect(try world.sqlite("PRAGMA integrity_check") == "ok")
    }

    @Test func concurrentPasscodeAttemptsNeverPassTheThrottle() throws {
        let world = try TestEnvironment()
        try world.setConfig("passcode-delays", "0,0,60")
        let processes = try (0..<20).map { index in
            let process = try world.start(["-S", "--json", "auth"])
            process.write("bad-\(index)-a\nbad-\(index)-b\nbad-\(index)-c\n")
            process.closeInput()
            return process
        }
        let results = try processes.map { try $0.wait(timeout: 90) }
        #expect(world.calls("touchgate") == 2, "two failures, then a 60 s wait that nobody gets past")
        for result in results {
            CoreExpect.outcome(result, "authenticationFailed", policy: "device-owner")
        }
        let throttled = results.filter { $0.json?["retryAfterSeconds"] is Int }
        #expect(throttled.count == results.count, "every evaluation ends at the throttle")
        #expect(try world.statusJSON()["passcodeFailures"] as? Int == 2)
    }

    @Test func processKilledDuringTheCheckLeavesACountedFailure() throws {
        let world = try TestEnvironment()
        try world.enrollWithoutEnabling()
        try world.setConfig("biometric-service", "touchgate-slow")
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 0)

        let process = try world.start(["-S", "--json", "auth", "--policy", "biometrics"])
        // The slow stack counts the call, then sleeps 3 s before it asks: kill the process in there.
        try world.waitFor("the slow stack to be reached") { world.calls("touchgate-slow") == 1 }
        kill(process.pid, SIGKILL)
        let result = try process.wait(timeout: 30)
        #expect(result.status != 0)
        #expect(process.killedBySignal, "\(result)")

        let status = try world.statusJSON()
        #expect(status["biometricFailures"] as? Int == 1, "the attempt was counted before PAM was called")
        let log = try world.run(["--json", "log", "--limit", "1"])
        let last = try #require((log.json?["entries"] as? [[String: Any]])?.last, "\(log)")
        #expect(last["outcome"] as? String == "pending", "\(log)")
        #expect(last["factor"] as? String == "biometric", "\(log)")
        #expect(last["policy"] as? String == "biometrics", "\(log)")
        #expect(try world.sqlite("PRAGMA integrity_check") == "ok")

        // Killing a process cannot be used to dodge the lockout: five such kills lock the factor out.
        _ = try world.sqlite("UPDATE users SET biometric_failures = 4 WHERE name = 'alice'")
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 4)
        let second = try world.start(["-S", "--json", "auth", "--policy", "biometrics"])
        try world.waitFor("the slow stack to be reached again") { world.calls("touchgate-slow") == 2 }
        kill(second.pid, SIGKILL)
        _ = try second.wait(timeout: 30)
        let locked = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        CoreExpect.outcome(locked, "biometryLockout", policy: "biometrics")
        #expect(world.calls("touchgate-slow") == 2)
    }
}
