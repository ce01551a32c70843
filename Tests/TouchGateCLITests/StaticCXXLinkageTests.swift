import Foundation
import Testing

/// `Linker/StaticCXX`: with it first on the library path, the toolchain's `-lstdc++` in a
/// `--static-swift-stdlib` link resolves to GCC's static archives, so the program starts without
/// loading `libstdc++.so.6` and `libgcc_s.so.1` (Linker/StaticCXX/README.md).
@Suite struct StaticCXXLinkageTests {
    @Test func aStaticSwiftProgramLinkedThroughTheScriptLoadsNoCxxRuntime() throws {
        let swiftc = try #require(Toolchain.swiftc, "swiftc is on PATH")
        let directory = try Toolchain.scratchDirectory("linkage")
        defer { try? FileManager.default.removeItem(at: directory) }
        // Dictionary hashing and string interpolation reach into the runtime's C++ parts.
        let source = try Toolchain.writeMain("let counts = [\"a\": 1, \"b\": 2]\nprint(\"linked \\(counts[\"b\"]!)\")\n", in: directory)
        let script = TestEnvironment.packageRoot.appendingPathComponent("Linker/StaticCXX").path
        var programs: [String: [String]] = [:]
        for (name, extra) in [("through-script", ["-L", script]), ("toolchain-default", [])] {
            let program = directory.appendingPathComponent(name).path
            let build = try Toolchain.buildStaticProgram(swiftc, source: source, to: program, extra: extra)
            #expect(build.status == 0, "\(build)")
            let run = try TestEnvironment.execute(program, [], input: nil, environment: [:])
            #expect(run.status == 0 && run.stdout == "linked 2\n", "\(run)")
            programs[name] = try Toolchain.neededLibraries(program)
        }
        let linked = try #require(programs["through-script"])
        #expect(!linked.contains { $0.hasPrefix("libstdc++") || $0.hasPrefix("libgcc_s") }, "\(linked)")
        // The comparison shows the test can fail: without the script the same link loads both.
        let plain = try #require(programs["toolchain-default"])
        #expect(plain.contains { $0.hasPrefix("libstdc++") }, "\(plain)")
    }
}
