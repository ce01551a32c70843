import Foundation
import Testing

/// `touchgate watch` runs the separate `touchgate-watch` executable (the only one that links
/// libdbus-1): found beside `touchgate`, else in `../libexec/touchgate/`; missing, exit 69.
@Suite struct WatcherExecutableTests {
    /// The built watcher, beside the built `touchgate`.
    static let watcher = URL(fileURLWithPath: TestEnvironment.binary).deletingLastPathComponent()
        .appendingPathComponent("touchgate-watch").path

    @Test func withoutTheWatcherWatchSaysSoInOneLineAndExits69() throws {
        let world = try TestEnvironment()
        let touchgate = try world.installTouchgate(with: Self.watcher, in: nil)
        let result = try TestEnvironment.execute(touchgate, ["watch"], environment: world.environment)
        #expect(result.status == 69, "\(result)")
        #expect(result.stderr.hasPrefix("touchgate: touchgate watch needs touchgate-watch, which is neither in "), "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
        let json = try TestEnvironment.execute(touchgate, ["--json", "watch"], environment: world.environment)
        #expect(json.status == 69 && json.json?["exitCode"] as? Int == 69, "\(json)")
        // The unit is text: it needs no watcher, and it starts `touchgate watch`.
        let unit = try TestEnvironment.execute(touchgate, ["watch", "--unit"], environment: world.environment)
        #expect(unit.status == 0, "\(unit)")
        #expect(unit.stdout.contains("ExecStart=\(touchgate) watch\n"), "\(unit)")
    }

    /// The running watcher is `touchgate-watch` itself (the same process: `touchgate` execs it),
    /// with the arguments `touchgate` got, and it ends on SIGTERM with 0 as before.
    @Test(arguments: ["bin", "libexec/touchgate"])
    func watchExecsTheWatcher(in directory: String) throws {
        let world = try TestEnvironment()
        let touchgate = try world.installTouchgate(with: Self.watcher, in: directory)
        // No bus there: the watcher says so and keeps trying.
        world.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=" + world.directory.appendingPathComponent("no-bus").path
        let other = world.directory.appendingPathComponent("other.sqlite").path
        let process = try RunningProcess([touchgate, "--store", other, "watch"], environment: world.environment)
        try process.waitForError(containing: "cannot connect to the system bus")
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.pid)/exe")
        let expected = world.directory.appendingPathComponent(directory).appendingPathComponent("touchgate-watch")
        #expect(URL(fileURLWithPath: executable).standardizedFileURL.path == expected.standardizedFileURL.path)
        // `--store` reached it: its lock file sits beside that store.
        #expect(FileManager.default.fileExists(atPath: other + ".watch-alice"))
        process.signal(SIGTERM)
        let result = try process.wait()
        #expect(result.status == 0, "\(result)")
    }

    @Test func theWatcherRunsOnlyWatch() throws {
        let world = try TestEnvironment()
        let result = try TestEnvironment.execute(Self.watcher, ["status"], environment: world.environment)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr == "touchgate: touchgate-watch runs only 'touchgate watch'\n", "\(result)")
    }
}
