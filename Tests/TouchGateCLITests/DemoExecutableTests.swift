import Foundation
import Testing

/// `touchgate demo` and `touchgate test-world` run the separate `touchgate-demo` executable (the
/// only one that carries the test kit, TouchGateTesting): found as `touchgate watch` finds its
/// watcher, beside `touchgate`, else in `../libexec/touchgate/`; missing, one line and exit 69.
@Suite struct DemoExecutableTests {
    /// The built demo executable, beside the built `touchgate`.
    static let demo = URL(fileURLWithPath: TestEnvironment.binary).deletingLastPathComponent()
        .appendingPathComponent("touchgate-demo").path

    @Test func withoutTheDemoExecutableTheDemoSaysSoInOneLineAndExits69() throws {
        let world = try TestEnvironment()
        let touchgate = try world.installTouchgate(with: Self.demo, in: nil)
        for (arguments, command) in [(["demo"], "touchgate demo"),
                                     (["test-world", "create", world.directory.appendingPathComponent("w").path], "touchgate test-world")] {
            let result = try TestEnvironment.execute(touchgate, arguments, environment: world.environment)
            #expect(result.status == 69, "\(result)")
            #expect(result.stderr.hasPrefix("touchgate: \(command) needs touchgate-demo, which is neither in "), "\(result)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
            #expect(result.stdout.isEmpty, "\(result)")
            let json = try TestEnvironment.execute(touchgate, ["--json"] + arguments, environment: world.environment)
            #expect(json.status == 69 && json.json?["exitCode"] as? Int == 69, "\(json)")
        }
        // Nothing was made: the command did not run without its executable.
        #expect(!FileManager.default.fileExists(atPath: world.directory.appendingPathComponent("w").path))
    }

    /// `touchgate` has no test world of its own: a world made through it, with its JSON, proves
    /// that `touchgate-demo` ran, with the arguments `touchgate` got (`--json`, the directory).
    @Test(arguments: ["bin", "libexec/touchgate"])
    func theTestWorldRunsInTheDemoExecutable(in directory: String) throws {
        let world = try TestEnvironment()
        let touchgate = try world.installTouchgate(with: Self.demo, in: directory)
        let made = world.directory.appendingPathComponent("w").path
        let result = try TestEnvironment.execute(touchgate, ["--json", "test-world", "create", made], environment: world.environment)
        #expect(result.status == 0, "\(result)")
        #expect(result.json?["directory"] as? String == made, "\(result)")
        let removed = try TestEnvironment.execute(touchgate, ["test-world", "remove", made], environment: world.environment)
        #expect(removed.status == 0, "\(removed)")
        #expect(!FileManager.default.fileExists(atPath: made))
    }

    @Test func theDemoExecutableRunsOnlyTheDemoAndTheTestWorld() throws {
        let world = try TestEnvironment()
        let result = try TestEnvironment.execute(Self.demo, ["status"], environment: world.environment)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr == "touchgate: touchgate-demo runs only 'touchgate demo' and 'touchgate test-world'\n", "\(result)")
    }
}
