import Foundation
import Testing

/// `Linker/StaticCXX`: with it first on the library path, the toolchain's `-lstdc++` in a
/// `--static-swift-stdlib` link resolves to GCC's static archives, so the program starts without
/// loading `libstdc++.so.6` and `libgcc_s.so.1` (Linker/StaticCXX/README.md).
@Suite struct StaticCXXLinkageTests {
    static let swiftc: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        return path.split(separator: ":").map { "\($0)/swiftc" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    @Test func aStaticSwiftProgramLinkedThroughTheScriptLoadsNoCxxRuntime() throws {
        let swiftc = try #require(Self.swiftc, "swiftc is on PATH")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("touchgate-linkage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Dictionary hashing and string interpolation reach into the runtime's C++ parts.
        let source = directory.appendingPathComponent("main.swift")
        try Data("let counts = [\"a\": 1, \"b\": 2]\nprint(\"linked \\(counts[\"b\"]!)\")\n".utf8).write(to: source)
        let script = TestEnvironment.packageRoot.appendingPathComponent("Linker/StaticCXX").path
        var programs: [String: [String]] = [:]
        for (name, extra) in [("through-script", ["-L", script]), ("toolchain-default", [])] {
            let program = directory.appendingPathComponent(name).path
            let build = try TestEnvironment.execute(
                swiftc, ["-static-stdlib", source.path, "-o", program] + extra, input: nil,
                environment: ProcessInfo.processInfo.environment, timeout: 300)
            #expect(build.status == 0, "\(build)")
            let run = try TestEnvironment.execute(program, [], input: nil, environment: [:])
            #expect(run.status == 0 && run.stdout == "linked 2\n", "\(run)")
            programs[name] = try TestEnvironment.neededLibraries(program)
        }
        let linked = try #require(programs["through-script"])
        #expect(!linked.contains { $0.hasPrefix("libstdc++") || $0.hasPrefix("libgcc_s") }, "\(linked)")
        // The comparison shows the test can fail: without the script the same link loads both.
        let plain = try #require(programs["toolchain-default"])
        #expect(plain.contains { $0.hasPrefix("libstdc++") }, "\(plain)")
    }
}
