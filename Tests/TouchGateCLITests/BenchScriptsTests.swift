import Foundation
import Testing

/// The benchmark scripts (bench/run, bench/run-*, bench/lib.bash), which no test times: they are
/// clean under shellcheck (following what they source), the dispatcher answers its flags as
/// documented, and bench/publish.py, the one writer of bench/RESULTS.md's tables, replaces only
/// what is between its markers.
struct BenchScriptsTests {
    static let bench = TestEnvironment.packageRoot.appendingPathComponent("bench")

    /// Every shell file of bench/: the dispatcher, the mode scripts and what they source.
    static func shellFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: bench.path)
            .filter { $0 == "run" || $0.hasPrefix("run-") || $0.hasSuffix(".bash") }
            .sorted()
            .map { bench.appendingPathComponent($0).path }
    }

    @Test func everyScriptIsCleanUnderShellcheck() throws {
        let files = try Self.shellFiles()
        #expect(files.count >= 8, "\(files)")
        #expect(files.contains(Self.bench.appendingPathComponent("lib.bash").path))
        let lint = try TestEnvironment.execute(
            "/usr/bin/shellcheck", ["-x", "-P", TestEnvironment.packageRoot.path] + files, environment: [:],
            timeout: 120)
        #expect(lint.status == 0, "\(lint)")
    }

    @Test func theDispatcherNamesEachModeAndRefusesAnUnknownFlag() throws {
        let run = Self.bench.appendingPathComponent("run").path
        let help = try TestEnvironment.execute(run, ["--help"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(help.status == 0 && help.stderr.isEmpty, "\(help)")
        for mode in ["main", "store-size", "watch", "shell", "fingerprint", "pam", "lid"] {
            #expect(help.stdout.contains("bench/run-\(mode)"), "bench/run --help does not name bench/run-\(mode)")
            let script = Self.bench.appendingPathComponent("run-\(mode)").path
            #expect(FileManager.default.isExecutableFile(atPath: script), "\(script)")
            let modeHelp = try TestEnvironment.execute(script, ["--help"], environment: ["PATH": "/usr/bin:/bin"])
            #expect(modeHelp.status == 0 && modeHelp.stdout.contains("bench/run-\(mode)"), "\(modeHelp)")
        }
        let unknown = try TestEnvironment.execute(run, ["--no-such-mode"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(unknown.status == 64 && unknown.stdout.isEmpty, "\(unknown)")
        #expect(unknown.stderr.contains("unknown argument '--no-such-mode'"), "\(unknown)")
        let two = try TestEnvironment.execute(run, ["--watch", "--shell"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(two.status == 64, "\(two)")
    }

    @Test func publishingReplacesOnlyTheTableBetweenItsMarkers() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("touchgate-bench-publish-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = directory.appendingPathComponent("RESULTS.md").path
        let table = directory.appendingPathComponent("table.md").path
        try "# Results\n\nbefore\n<!-- a begins -->\nold row\nold row 2\n<!-- a ends -->\nafter\n"
            .write(toFile: results, atomically: true, encoding: .utf8)
        try "| new | row |\n".write(toFile: table, atomically: true, encoding: .utf8)
        let publish = Self.bench.appendingPathComponent("publish.py").path
        let replaced = try TestEnvironment.execute(
            "/usr/bin/python3", [publish, results, "<!-- a begins -->", "<!-- a ends -->", table], environment: [:])
        #expect(replaced.status == 0, "\(replaced)")
        #expect(try String(contentsOfFile: results, encoding: .utf8)
            == "# Results\n\nbefore\n<!-- a begins -->\n| new | row |\n<!-- a ends -->\nafter\n")
        let appended = try TestEnvironment.execute(
            "/usr/bin/python3", [publish, results, "<!-- b begins -->", "<!-- b ends -->", table, "More"], environment: [:])
        #expect(appended.status == 0, "\(appended)")
        #expect(try String(contentsOfFile: results, encoding: .utf8).hasSuffix(
            "after\n\n## More\n\n<!-- b begins -->\n| new | row |\n<!-- b ends -->\n"))
    }
}
