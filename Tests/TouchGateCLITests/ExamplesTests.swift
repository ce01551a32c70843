import Foundation
import Testing

/// The examples of docs/testing.md run as they are, so they cannot rot: the shell script and the
/// pytest file, against the built binary (the Swift example is the `ExampleTests` target).
@Suite struct ExamplesTests {
    /// The runner's environment without touchgate's own variables, with the built binary first on PATH.
    static var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TOUCHGATE_") }
        let binaries = URL(fileURLWithPath: TestEnvironment.binary).deletingLastPathComponent().path
        environment["PATH"] = binaries + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["TOUCHGATE"] = TestEnvironment.binary
        environment["LD_PRELOAD"] = nil
        return environment
    }

    static func example(_ path: String) -> String {
        TestEnvironment.packageRoot.appendingPathComponent("examples/" + path).path
    }

    @Test func theShellExamplePasses() throws {
        let result = try RunningProcess.run(["/bin/bash", Self.example("shell/lockout-test.sh")],
                                            environment: Self.environment, timeout: 120)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("ok: the 6th wrong try is a lockout"), "\(result)")
    }

    @Test func thePytestExamplePasses() throws {
        let result = try RunningProcess.run(
            ["/usr/bin/python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", Self.example("python")],
            environment: Self.environment, timeout: 120)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("1 passed"), "\(result)")
    }

    /// A world is removed by `test-world remove`, and only a world is.
    @Test func testWorldRemoveDeletesOnlyAWorld() throws {
        let world = try TestEnvironment()
        let directory = world.directory.appendingPathComponent("w").path
        let made = try world.run(["--json", "test-world", "create", directory])
        #expect(made.status == 0, "\(made)")
        #expect((made.json?["environment"] as? [String: String])?["TOUCHGATE_PAM_CONFDIR"] == directory, "\(made)")
        let notEmpty = try world.run(["test-world", "create", world.directory.path])
        #expect(notEmpty.status == 65 && notEmpty.stderr.contains("exists and is not an empty directory"), "\(notEmpty)")
        let refused = try world.run(["test-world", "remove", world.directory.path])
        #expect(refused.status == 65, "\(refused)")
        #expect(FileManager.default.fileExists(atPath: world.directory.path))
        let removed = try world.run(["test-world", "remove", directory])
        #expect(removed.status == 0, "\(removed)")
        #expect(!FileManager.default.fileExists(atPath: directory))
    }
}
