import Foundation
import Testing

/// More of the real reader (``FingerprintReader``): enrollment by a scan, evaluations at once
/// against a device fprintd serializes, a user fprintd has no prints for, a new verify right after
/// a cancelled one, and `did-enter-background` during a wait. Part of the serialized suite (one
/// reader for all).
extension FingerprintTests {
    /// `touchgate enroll`: the passcode, then the biometric factor's one success is a real scan
    /// (the passcode line is not the finger: under enrollment a typed line never is a passcode).
    @Test func enrollIsCompletedByARealScan() throws {
        let reader = try FingerprintReader.start()
        try reader.ensureRunning()
        let world = try TestEnvironment.withFingerprintReader(reader, enroll: false)
        try world.setConfig("biometric-service", Self.service)
        #expect(try world.statusJSON()["enrolled"] as? Bool == false)
        let enroll = try world.start(["-S", "--json", "enroll"])
        enroll.write("alice-passcode\n")
        try enroll.waitForError(containing: FingerprintReader.waitingMessage, timeout: 20)
        #expect(enroll.isRunning, "the passcode alone does not enroll")
        try reader.send("SCAN good")
        let result = try enroll.wait(timeout: 30)
        #expect(result.status == 0, "\(result)")
        #expect(result.json?["outcome"] as? String == "success" && result.json?["enrolled"] as? Bool == true, "\(result)")
        #expect(try world.statusJSON()["enrolled"] as? Bool == true)
        #expect(world.calls(Self.service) == 1, "one scan")
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 0)
    }

    /// Several `auth --policy biometrics` at once against one reader. fprintd lets one client
    /// claim the device; pam_fprintd answers every other at once with PAM_AUTHINFO_UNAVAIL, so
    /// those tries end `biometryNotAvailable` and are taken back (no finger was checked). Tries
    /// the store did not admit (the admitted ones' counts are written ahead) end
    /// `biometryLockout` without reaching the stack. So each round counts exactly the one wrong
    /// scan, and the factor is locked out after exactly `max-biometric-failures` scans.
    @Test func evaluationsAtOnceLockOutAfterExactlyTheMaximumOfScans() throws {
        let reader = try FingerprintReader.start()
        try reader.ensureRunning()
        let world = try TestEnvironment.withFingerprintReader(reader)
        try world.setConfig("max-biometric-failures", "3")
        try world.setConfig("biometric-tries-per-evaluation", "1")
        let parallel = 4
        for round in 1...3 {
            let callsBefore = world.calls(Self.service)
            let runs = try (0..<parallel).map { _ in try world.start(["-S", "--json", "auth", "--policy", "biometrics"]) }
            for run in runs { run.closeInput() }
            // All but the one that claimed the device end by themselves; that one waits for a finger.
            try world.waitFor("all but one evaluation to end (round \(round))") {
                runs.filter(\.isRunning).count <= 1
            }
            guard let waiting = runs.first(where: { $0.isRunning }) else {
                throw TestFailure("round \(round): no evaluation waits for the reader")
            }
            try waiting.waitForError(containing: FingerprintReader.waitingMessage, timeout: 20)
            try reader.send("SCAN bad")
            let results = try runs.map { try $0.wait(timeout: 30) }
            let outcomes = results.map { $0.json?["outcome"] as? String ?? "exit \($0.status)" }
            let scanned = outcomes.filter { $0 == "authenticationFailed" }.count
            let busy = outcomes.filter { $0 == "biometryNotAvailable" }.count
            let notAdmitted = outcomes.filter { $0 == "biometryLockout" }.count
            #expect(scanned == 1, "round \(round): \(outcomes)")
            #expect(busy + notAdmitted == parallel - 1, "round \(round): \(outcomes)")
            for (result, outcome) in zip(results, outcomes) {
                CoreExpect.outcome(result, outcome, policy: "biometrics")
            }
            #expect(world.calls(Self.service) == callsBefore + scanned + busy, "round \(round): only admitted tries reach the stack")
            let status = try world.statusJSON()
            #expect(status["biometricFailures"] as? Int == round, "round \(round): the one scan, and only it, counted")
            #expect(status["biometryLockedOut"] as? Bool == (round == 3))
        }
        let callsBefore = world.calls(Self.service)
        let locked = try (0..<parallel).map { _ in try world.start(["-S", "--json", "auth", "--policy", "biometrics"]) }
        for run in locked {
            run.closeInput()
            CoreExpect.outcome(try run.wait(timeout: 20), "biometryLockout", policy: "biometrics")
        }
        #expect(world.calls(Self.service) == callsBefore, "a locked-out factor never reaches the reader")
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 3)
    }

    /// fprintd runs but has no prints for the user (bob, enrolled in touchgate, never in fprintd):
    /// pam_fprintd answers PAM_AUTHINFO_UNAVAIL at once. Never an unlock, never a wait (the stack
    /// would wait 60 s): `biometryNotAvailable`, and under device-owner the reason and the passcode.
    @Test func noPrintsEnrolledInFprintdOffersThePasscodeWithoutWaiting() throws {
        let reader = try FingerprintReader.start()
        try reader.ensureRunning()
        let world = try TestEnvironment()
        world.user = "bob"
        world.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = reader.busAddress
        try world.enrollWithoutEnabling()
        try world.setConfig("biometric-service", "touchgate-fprintd-slow")
        let biometrics = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], timeout: 20)
        CoreExpect.outcome(biometrics, "biometryNotAvailable", policy: "biometrics")
        #expect(!biometrics.stderr.contains(FingerprintReader.waitingMessage), "\(biometrics)")

        let deviceOwner = try world.start(["-S", "--json", "auth"])
        try deviceOwner.waitForError(containing: "Password:", timeout: 20)
        #expect(deviceOwner.errorsSoFar.contains("The biometric factor is not available. Use the passcode."), "\(deviceOwner.errorsSoFar)")
        #expect(deviceOwner.isRunning, "no unlock without the passcode")
        deviceOwner.write("bob-passcode\n")
        CoreExpect.outcome(try deviceOwner.wait(timeout: 20), "success", policy: "device-owner")
        #expect(world.calls("touchgate-fprintd-slow") == 2)
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 0)
        #expect(Self.workers("touchgate-fprintd-slow", of: world).isEmpty)
    }

    /// A wait left with Enter (the fallback), and at once the next evaluation: its verify starts
    /// while fprintd is still releasing the killed worker's claim, and must still get the reader
    /// (a busy device would make it `biometryNotAvailable`). Three times, then a scan.
    @Test func theReaderIsFreeRightAfterACancelledWait() throws {
        let reader = try FingerprintReader.start()
        try reader.ensureRunning()
        let world = try TestEnvironment.withFingerprintReader(reader)
        try world.setConfig("biometric-service", "touchgate-fprintd-slow")
        for _ in 0..<3 {
            let auth = try startWaiting(world, reader, ["auth", "--policy", "biometrics"])
            auth.write("\n")
            CoreExpect.outcome(try auth.wait(timeout: 20), "userFallback", policy: "biometrics")
        }
        let next = try startWaiting(world, reader, ["auth", "--policy", "biometrics"], then: "SCAN good")
        CoreExpect.outcome(try next.wait(timeout: 30), "success", policy: "biometrics")
        #expect(world.calls("touchgate-fprintd-slow") == 4)
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 0)
        #expect(Self.workers("touchgate-fprintd-slow", of: world).isEmpty)
    }

    /// `touchgate event did-enter-background --session S` while `auth --session S` waits for a
    /// finger (the stack would wait 60 s): auth ends with `appCancel` (exit 9), its worker is
    /// killed with nothing of it left, the try is taken back, and the next verify takes a scan.
    @Test(arguments: ["biometrics", "device-owner"])
    func didEnterBackgroundDuringTheWaitIsAppCancel(policy: String) throws {
        let reader = try FingerprintReader.start()
        try reader.ensureRunning()
        let world = try TestEnvironment.withFingerprintReader(reader)
        try world.setConfig("biometric-service", "touchgate-fprintd-slow")
        let session = "reader-\(policy)"
        try world.gateEvents(["did-finish-launching"], session: session)
        let auth = try startWaiting(world, reader, ["auth", "--session", session, "--policy", policy])
        let workers = Self.workers("touchgate-fprintd-slow", of: world)
        #expect(workers.count == 1, "the wait runs in a worker")
        let event = try world.run(["--json", "event", "did-enter-background", "--session", session])
        #expect(event.status == 0 && event.json?["state"] as? String == "background", "\(event)")
        let result = try auth.wait(timeout: 20)
        CoreExpect.outcome(result, "appCancel", policy: policy)
        #expect(!result.stderr.contains("Password:"), "appCancel ends the evaluation, no passcode asked: \(result)")
        #expect(Self.workers("touchgate-fprintd-slow", of: world).isEmpty, "no worker left behind")
        for pid in workers { #expect(kill(pid, 0) != 0, "worker \(pid) still exists") }
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 0, "no finger was checked")
        #expect(try world.gateAuditCount(factor: "biometric", outcome: "appCancel") == 1)

        let next = try startWaiting(world, reader, ["auth", "--policy", "biometrics"], then: "SCAN good")
        CoreExpect.outcome(try next.wait(timeout: 30), "success", policy: "biometrics")
    }
}

/// `touchgate test-world sensor` and `test-world scan`: the simulated sensor for shell and Python
/// users and the bench, the same `SimulatedFingerprintSensor` as the suite's reader.
@Suite struct TestWorldSensorTests {
    @Test func theSensorCommandRunsAReaderThatAScanUnlocksUntilItIsStopped() throws {
        let world = try TestEnvironment()
        let directory = world.directory.appendingPathComponent("sensor")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        chmod(directory.path, 0o755)
        let sensor = try world.start(["test-world", "sensor", directory.path])
        defer { sensor.signal(SIGKILL) }
        try gateEventually("the sensor to be ready: \(sensor.errorsSoFar)", timeout: 60) {
            guard sensor.isRunning else { throw TestFailure("the sensor ended: \(sensor.errorsSoFar)") }
            return sensor.outputSoFar.split(separator: "\n").contains("ready")
        }
        let bus = "unix:path=\(directory.path)/bus"
        #expect(sensor.outputSoFar.contains("export DBUS_SYSTEM_BUS_ADDRESS='\(bus)'"), "\(sensor.outputSoFar)")
        world.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = bus
        try world.enrollWithoutEnabling()
        try world.setConfig("biometric-service", "touchgate-fprintd")
        try world.setConfig("biometric-tries-per-evaluation", "1")

        let auth = try world.start(["-S", "auth", "--policy", "biometrics"])
        try auth.waitForError(containing: FingerprintReader.waitingMessage)
        let scan = try world.run(["test-world", "scan", directory.path, "SCAN good"])
        #expect(scan.status == 0, "\(scan)")
        #expect(try auth.wait(timeout: 20).status == 0)

        let wrong = try world.start(["-S", "auth", "--policy", "biometrics"])
        try wrong.waitForError(containing: FingerprintReader.waitingMessage)
        #expect(try world.run(["test-world", "scan", directory.path, "SCAN another-finger"]).status == 0)
        #expect(try wrong.wait(timeout: 20).status == 1)

        sensor.signal(SIGTERM)
        #expect(try sensor.wait(timeout: 20).status == 0)
        // Stopped with it: fprintd no longer answers on that bus.
        let call = try RunningProcess.run(
            ["/usr/bin/gdbus", "call", "--system", "-d", "net.reactivated.Fprint", "-o", "/net/reactivated/Fprint/Manager",
             "-m", "net.reactivated.Fprint.Manager.GetDevices"], environment: world.environment, timeout: 30)
        #expect(call.status != 0, "\(call)")
    }
}
