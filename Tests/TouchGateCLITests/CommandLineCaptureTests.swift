import Foundation
import Testing

/// `Sources/CCommandLine`: the executable's own `_swift_stdlib_getUnsafeArgvArgc`, fed by an ELF
/// constructor, keeps the Swift runtime's start-up scan of `/proc/self/maps` out of the
/// `--static-swift-stdlib` binary, and `CommandLine.arguments` still sees every argument as given.
@Suite struct CommandLineCaptureTests {
    /// Whether `program` carries the runtime's argv-finding static initializer.
    static func hasRuntimeArgvGrabber(_ program: String) throws -> Bool {
        try Toolchain.symbols(program).contains("_GLOBAL__sub_I_CommandLine.cpp")
    }

    @Test func aStaticProgramGetsItsArgumentsWithoutTheRuntimeScan() throws {
        let swiftc = try #require(Toolchain.swiftc, "swiftc is on PATH")
        let clang = try #require(Toolchain.clang, "clang is beside swiftc")
        let directory = try Toolchain.scratchDirectory("argv")
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Toolchain.writeMain(
            "for argument in CommandLine.arguments.dropFirst() { print(\"[\\(argument)]\") }\n", in: directory)
        let object = directory.appendingPathComponent("CommandLine.o").path
        let capture = TestEnvironment.packageRoot.appendingPathComponent("Sources/CCommandLine/CommandLine.c").path
        let compile = try TestEnvironment.execute(clang, ["-O2", "-c", capture, "-o", object], input: nil,
                                                  environment: ProcessInfo.processInfo.environment, timeout: 120)
        #expect(compile.status == 0, "\(compile)")
        let arguments = ["plain", "two words", "", "--ünïcødé=✓", "-", "--", "$HOME"]
        var grabbers: [String: Bool] = [:]
        for (name, extra) in [("with-capture", [object]), ("runtime-default", [])] {
            let program = directory.appendingPathComponent(name).path
            let build = try Toolchain.buildStaticProgram(swiftc, source: source, to: program, extra: extra)
            #expect(build.status == 0, "\(build)")
            let run = try TestEnvironment.execute(program, arguments, input: nil, environment: [:])
            #expect(run.status == 0, "\(run)")
            #expect(run.stdout == arguments.map { "[\($0)]\n" }.joined(), "\(name): \(run)")
            grabbers[name] = try Self.hasRuntimeArgvGrabber(program)
        }
        #expect(grabbers["with-capture"] == false, "the runtime's CommandLine.cpp.o was linked in anyway")
        // The comparison shows the check can fail: the plain static link carries the initializer.
        #expect(grabbers["runtime-default"] == true)
    }

    @Test func touchgateSeesItsArgumentsAsGiven() throws {
        let world = try TestEnvironment()
        let result = try world.run(["--ünïcødé option"])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr == "touchgate: unknown option '--ünïcødé option'\n", "\(result)")
        let command = try world.run(["frob nicate"])
        #expect(command.stderr.hasPrefix("touchgate: unknown command 'frob nicate'"), "\(command)")
    }
}
