import Foundation
import Testing
import TouchGate
import TouchGateCLI

/// How the `touchgate` executable is linked: Debian's static `libsqlite3.a` (`Linker/StaticSQLite`,
/// so no process pays for loading and binding `libsqlite3.so.0`) unless it was built with
/// `TOUCHGATE_SHARED_SQLITE=1`, which `touchgate --version` reports; no exported symbols; and none
/// of the Swift runtime's own functions replaced by the executable.
@Suite struct ExecutableLinkageTests {
    static let sharedBuild = ProcessInfo.processInfo.environment["TOUCHGATE_SHARED_SQLITE"] == "1"

    @Test func theExecutableLinksSQLiteInAndSaysSo() throws {
        let needed = try Toolchain.neededLibraries(TestEnvironment.binary)
        #expect(needed.contains("libc.so.6"), "the check reads nothing: \(needed)")
        // Only the watcher talks to the system bus: the gate before every prompt does not load libdbus-1.
        #expect(!needed.contains { $0.hasPrefix("libdbus-1") }, "\(needed)")
        // libvterm (touchgate shell's screen model) is linked in: no process loads libvterm.so.0 (Linker/StaticVTerm).
        #expect(!needed.contains { $0.hasPrefix("libvterm") }, "\(needed)")
        #expect(needed.contains { $0.hasPrefix("libsqlite3") } == Self.sharedBuild, "\(needed)")

        let world = try TestEnvironment()
        let version = try world.run(["--version", "--json"])
        #expect(version.status == 0, "\(version)")
        let json = try #require(version.json, "\(version)")
        #expect(json["version"] as? String == TouchGateCommand.version)
        // This test process loads the system's libsqlite3.so.0 (test targets link it as a shared
        // library): the copy linked into touchgate must be the same release.
        let inProcess = SQLiteLibrary.current
        #expect(inProcess.sharedLibrary == "libsqlite3.so.0", "\(inProcess)")
        #expect(json["sqlite"] as? String == inProcess.version, "\(version)")
        if Self.sharedBuild {
            #expect(json["sqliteLibrary"] as? String == "libsqlite3.so.0", "\(version)")
        } else {
            #expect(json["sqliteLibrary"] is NSNull, "\(version)")
        }
        let line = try world.run(["--version"])
        #expect(line.stdout == "touchgate \(TouchGateCommand.version) (SQLite \(inProcess.version)"
                + (Self.sharedBuild ? " from libsqlite3.so.0)\n" : ", linked in)\n"), "\(line)")
    }

    /// `touchgate-watch` (which `touchgate watch` execs) is the one executable that links
    /// libdbus-1, and it is linked like `touchgate` otherwise: SQLite in, no exported symbols.
    @Test func theWatcherAloneLinksDBus() throws {
        let needed = try Toolchain.neededLibraries(WatcherExecutableTests.watcher)
        #expect(needed.contains("libdbus-1.so.3"), "\(needed)")
        #expect(needed.contains { $0.hasPrefix("libsqlite3") } == Self.sharedBuild, "\(needed)")
        let dynamicSymbols = try Toolchain.symbols(WatcherExecutableTests.watcher, ["-D", "--defined-only"])
        let exported = dynamicSymbols.split(separator: "\n").filter { $0.contains("TouchGate") }
        #expect(exported.isEmpty, "\(exported.prefix(5))")
    }

    /// `touchgate-watch` links neither the CLI (the man page's prose, the demo) nor its parser
    /// (TouchGateArguments) nor anything of them: its loop is TouchGateWatch's, its decisions
    /// TouchGate's. (Swift's mangled names carry their module's name with its length:
    /// `12TouchGateCLI`, `18TouchGateArguments`, `14TouchGateWatch`.)
    @Test func theWatcherLinksNothingOfTheCLI() throws {
        let defined = try Toolchain.symbols(WatcherExecutableTests.watcher, ["--defined-only"]).split(separator: "\n")
        #expect(defined.contains { $0.contains("14TouchGateWatch") }, "no TouchGateWatch symbol: the check reads nothing")
        let cli = defined.filter { $0.contains("12TouchGateCLI") || $0.contains("18TouchGateArguments") }
        #expect(cli.isEmpty, "\(cli.prefix(5))")
        // Nor either man page's text: touchgate(1)'s sections are the CLI's, pam_touchgate(8)'s
        // the PAM helper's (each embedded only where it is printed).
        let binary = try Data(contentsOf: URL(fileURLWithPath: WatcherExecutableTests.watcher))
        for file in ["man/sections/see-also.roff", "man/pam_touchgate/sections/options.roff"] {
            let text = try String(contentsOfFile: TestEnvironment.packageRoot.appendingPathComponent(file).path, encoding: .utf8)
            #expect(binary.range(of: Data(text.utf8)) == nil, "touchgate-watch carries \(file)")
        }
        let helper = try Data(contentsOf: URL(fileURLWithPath: PAMHost.helperBinary))
        let options = try String(contentsOfFile: TestEnvironment.packageRoot.appendingPathComponent("man/pam_touchgate/sections/options.roff").path,
                                 encoding: .utf8)
        #expect(helper.range(of: Data(options.utf8)) != nil, "the check would find no section text where one is embedded")
    }

    /// The test kit (TouchGateTesting: `PAMWorld`, the simulated fingerprint sensor) and the demo
    /// (TouchGateDemo) are in `touchgate-demo` alone, which `touchgate demo` and `test-world` exec:
    /// not in the `touchgate` every shell hook, tmux hook and login shell starts. (Mangled names
    /// carry the module's name with its length: `16TouchGateTesting`, `13TouchGateDemo`.)
    @Test func theExecutableCarriesNeitherTheTestKitNorTheDemo() throws {
        let defined = try Toolchain.symbols(TestEnvironment.binary, ["--defined-only"]).split(separator: "\n")
        #expect(defined.contains { $0.contains("12TouchGateCLI") }, "no TouchGateCLI symbol: the check reads nothing")
        let carried = defined.filter { $0.contains("16TouchGateTesting") || $0.contains("13TouchGateDemo") }
        #expect(carried.isEmpty, "\(carried.count) symbols, e.g. \(carried.prefix(5))")
        let demo = try Toolchain.symbols(DemoExecutableTests.demo, ["--defined-only"]).split(separator: "\n")
        #expect(demo.contains { $0.contains("16TouchGateTesting") }, "the check would find no test-kit symbol where it is linked")
        #expect(demo.contains { $0.contains("13TouchGateDemo") }, "the check would find no demo symbol where it is linked")
    }

    @Test func theExecutableExportsNoSymbols() throws {
        let dynamicSymbols = try Toolchain.symbols(TestEnvironment.binary, ["-D", "--defined-only"])
        // The toolchain's link would export every public symbol of TouchGate and TouchGateCLI.
        let exported = dynamicSymbols.split(separator: "\n").filter { $0.contains("TouchGate") || $0.contains("_swift_stdlib") }
        #expect(exported.isEmpty, "\(exported.prefix(5))")
    }

    /// The executable does not replace the Swift runtime's private `argv` functions (as
    /// `Sources/CCommandLine` once did, to skip the runtime's start-up scan of /proc/self/maps):
    /// that ties the binary to one toolchain's internals. Where they are defined at all, they are
    /// the runtime's own (its `CommandLine.cpp` object, static initializer included).
    @Test func theExecutableReplacesNoRuntimeFunction() throws {
        let defined = try Toolchain.symbols(TestEnvironment.binary, ["--defined-only"]).split(separator: "\n")
        let replaced = defined.filter { $0.hasSuffix(" _swift_stdlib_getUnsafeArgvArgc")
            || $0.hasSuffix(" _swift_stdlib_overrideUnsafeArgvArgc") }
        let runtimeArgv = defined.contains { $0.hasSuffix(" _GLOBAL__sub_I_CommandLine.cpp") }
        #expect(replaced.isEmpty || runtimeArgv, "\(replaced)")
    }

    @Test func touchgateSeesItsArgumentsAsGiven() throws {
        let world = try TestEnvironment()
        let result = try world.run(["--ünïcødé option"])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.hasPrefix("touchgate: unknown option '--ünïcødé option'\n"), "\(result)")
        let command = try world.run(["frob nicate"])
        #expect(command.stderr.hasPrefix("touchgate: unknown command 'frob nicate'"), "\(command)")
    }

    /// Every ELF file the package installs is linked with Debian's hardening flags (lintian's
    /// hardening-no-bindnow and hardening-no-relro): symbols bound at start (`-z now`, `FLAGS_1`
    /// `NOW`) and a read-only relocation segment (`-z relro`, `GNU_RELRO`). `Package.swift`'s
    /// `hardeningLinkerFlags` and `PAMModule/build` pass them; a build without them fails here.
    @Test(arguments: ["touchgate", "touchgate-watch", "touchgate-demo", "touchgate-pam-helper", "pam_touchgate.so"])
    func theInstalledFileBindsNowWithRelro(name: String) throws {
        let file = name == "pam_touchgate.so" ? BuiltPAMModule.path
            : URL(fileURLWithPath: TestEnvironment.binary).deletingLastPathComponent().appendingPathComponent(name).path
        let dynamic = try TestEnvironment.execute("/usr/bin/readelf", ["-d", "-W", file], environment: [:])
        #expect(dynamic.status == 0, "\(dynamic)")
        let flags = dynamic.stdout.split(separator: "\n").filter { $0.contains("(FLAGS_1)") || $0.contains("(FLAGS)") }
        #expect(flags.contains { $0.contains(" NOW") || $0.contains("BIND_NOW") }, "\(name): \(flags)")
        let segments = try TestEnvironment.execute("/usr/bin/readelf", ["-l", "-W", file], environment: [:])
        #expect(segments.stdout.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("GNU_RELRO ") },
                "\(name): \(segments)")
    }

    /// No target the executable's build links imports Foundation (`Foundation`,
    /// `FoundationEssentials`): the `--static-swift-stdlib` build links every executable target
    /// statically, the build tool `embed-migrations` included, and Foundation's static archive
    /// brings the linker's warning that "the use of `mktemp' is dangerous" with it.
    @Test func noBuiltTargetImportsFoundation() throws {
        let sources = TestEnvironment.packageRoot.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 10)
        for file in files {
            let text = try String(contentsOfFile: sources.appendingPathComponent(file).path, encoding: .utf8)
            let imports = text.split(separator: "\n").filter { $0.hasPrefix("import Foundation") }
            #expect(imports.isEmpty, "Sources/\(file): \(imports)")
        }
    }
}
