import Foundation
import Testing

/// `touchgate demo`'s fingerprint walkthrough: a real fprintd and pam_fprintd with a simulated
/// sensor, on a private bus of the demo's own (not the suite's reader), and what the demo says
/// when fprintd is not there.
extension FingerprintTests {
    /// The pids of the processes whose command line or environment names `path`.
    static func processes(naming path: String) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry) else { return nil }
            let text = ["cmdline", "environ"].map {
                String(decoding: FileManager.default.contents(atPath: "/proc/\(entry)/\($0)") ?? Data(), as: UTF8.self)
            }.joined()
            return text.contains(path) ? pid : nil
        }
    }

    /// The walkthrough says the sensor is simulated, unlocks with a touch of it, takes Enter
    /// during the wait for the passcode, and skips the reader in a remote session; every step
    /// as expected, and nothing it started is left running.
    @Test func theDemoWalksThroughASimulatedReader() throws {
        let world = try TestEnvironment()
        let demo = try world.run(["demo"], timeout: 120)
        #expect(demo.status == 0, "\(demo)")
        let part = demo.stdout.components(separatedBy: "▸ A fingerprint reader").last ?? ""
        #expect(part.contains("A SIMULATED sensor: a real fprintd with libfprint's virtual device"), "\(demo.stdout)")
        #expect(part.contains("fprintd-enroll -f right-index-finger demo"), "\(part)")
        #expect(part.contains(FingerprintReader.waitingMessage), "\(part)")
        #expect(part.contains("[simulated sensor] a finger touches the reader (virtual device: SCAN demo-finger)"), "\(part)")
        #expect(part.contains("Failed to match fingerprint"), "\(part)")
        #expect(part.contains("⏎ Enter, while the reader waits"), "\(part)")
        #expect(part.components(separatedBy: "outcome: success (exit code 0)").count - 1 == 3, "\(part)")
        #expect(!part.contains("!! expected"), "\(part)")
        #expect(demo.stdout.contains("Demo finished: every step behaved as expected."), "\(demo.stdout)")
        #expect(!demo.stdout.contains("\u{1B}"), "the demo's output holds an escape sequence")
        // Its bus, polkit mock and fprintd were started with paths in the demo's directory.
        let directory = demo.stdout.split(separator: "\n").first { $0.hasPrefix("PAM stacks") }?
            .split(separator: " ").first { $0.hasPrefix("/tmp/touchgate-demo-") }.map { String($0.dropLast()) }
        let named = try #require(directory, "\(demo.stdout)")
        #expect(Self.processes(naming: named).isEmpty, "the demo left processes running")
    }

    /// Without fprintd (hidden here by a private mount namespace), the demo says how to see the
    /// walkthrough and the rest of it works as before.
    @Test func theDemoWithoutFprintdSaysHowToSeeIt() throws {
        let world = try TestEnvironment()
        let script = "mount --bind /dev/null /usr/libexec/fprintd && exec '\(TestEnvironment.binary)' demo"
        let demo = try RunningProcess.run(["/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script],
                                          environment: world.environment, timeout: 120)
        #expect(demo.status == 0, "\(demo)")
        #expect(demo.stdout.contains("Skipped: /usr/libexec/fprintd is not installed."), "\(demo.stdout)")
        #expect(demo.stdout.contains("(scripts/setup installs them)"), "\(demo.stdout)")
        #expect(!demo.stdout.contains("SIMULATED"), "\(demo.stdout)")
        #expect(demo.stdout.contains("Demo finished: every step behaved as expected."), "\(demo.stdout)")
    }
}
