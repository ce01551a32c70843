import Foundation
import Testing

/// A real fingerprint through fprintd: pam_fprintd in the test stack `touchgate-fprintd`, fprintd
/// with libfprint's virtual device on a private system bus (``FingerprintReader``), scans sent to
/// the device's socket while `touchgate` waits for them. Serialized: one reader for the suite.
@Suite(.serialized) struct FingerprintTests {
    static let service = "touchgate-fprintd"

    /// Starts `touchgate -S --json ARGUMENTS` in `world`, waits until pam_fprintd waits for a
    /// finger, then sends `command` to the device (when given) and returns the running process.
    func startWaiting(_ world: TestEnvironment, _ reader: FingerprintReader, _ arguments: [String],
                      then command: String? = nil) throws -> RunningProcess {
        let process = try world.start(["-S", "--json"] + arguments)
        try process.waitForError(containing: FingerprintReader.waitingMessage, timeout: 20)
        if let command { try reader.send(command) }
        return process
    }

    @Test func goodScanSucceeds() throws {
        let reader = try FingerprintReader.start()
        try reader.ensureRunning()
        let world = try TestEnvironment.withFingerprintReader(reader)
        let auth = try startWaiting(world, reader, ["auth", "--policy", "biometrics"], then: "SCAN good")
        let result = try auth.wait(timeout: 30)
        CoreExpect.outcome(result, "success", policy: "biometrics")
        #expect(world.calls(Self.service) == 1)
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 0)
    }
}
