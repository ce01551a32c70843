import Foundation
import Testing
import TouchGate
import TouchGateCLI

/// How the `touchgate` executable is linked: Debian's static `libsqlite3.a` (`Linker/StaticSQLite`,
/// so no process pays for loading and binding `libsqlite3.so.0`) unless it was built with
/// `TOUCHGATE_SHARED_SQLITE=1`, which `touchgate --version` reports; and no exported symbols.
@Suite struct ExecutableLinkageTests {
    static let sharedBuild = ProcessInfo.processInfo.environment["TOUCHGATE_SHARED_SQLITE"] == "1"

    @Test func theExecutableLinksSQLiteInAndSaysSo() throws {
        let needed = try Toolchain.neededLibraries(TestEnvironment.binary)
        #expect(needed.contains("libpam.so.0"), "\(needed)")
        // touchgate watch talks to the system bus through the shared libdbus-1.
        #expect(needed.contains("libdbus-1.so.3"), "\(needed)")
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

    @Test func theExecutableExportsNoSymbols() throws {
        let dynamicSymbols = try Toolchain.symbols(TestEnvironment.binary, ["-D", "--defined-only"])
        // The toolchain's link would export every public symbol of TouchGate and TouchGateCLI.
        let exported = dynamicSymbols.split(separator: "\n").filter { $0.contains("TouchGate") || $0.contains("_swift_stdlib") }
        #expect(exported.isEmpty, "\(exported.prefix(5))")
    }
}
