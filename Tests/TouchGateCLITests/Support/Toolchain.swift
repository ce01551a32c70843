import Foundation

/// The Swift toolchain that linkage tests build small programs with, and the binary tools they
/// inspect the results with.
enum Toolchain {
    /// The first executable called `name` on `PATH`.
    static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let swiftc = onPath("swiftc")
    /// The `clang` beside `swiftc`: the one SwiftPM compiles C targets with.
    static let clang: String? = swiftc.map { URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent("clang").path }
        .flatMap { FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil }

    /// A new directory under the temporary directory, named after `purpose`; the caller removes it.
    static func scratchDirectory(_ purpose: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("touchgate-\(purpose)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Writes `code` as `main.swift` in `directory` and returns its URL.
    static func writeMain(_ code: String, in directory: URL) throws -> URL {
        let source = directory.appendingPathComponent("main.swift")
        try Data(code.utf8).write(to: source)
        return source
    }

    /// Builds `source` into the `-static-stdlib` program `program` with `swiftc`, passing `extra`.
    static func buildStaticProgram(_ swiftc: String, source: URL, to program: String, extra: [String]) throws -> RunResult {
        try TestEnvironment.execute(swiftc, ["-static-stdlib", source.path, "-o", program] + extra, input: nil,
                                    environment: ProcessInfo.processInfo.environment, timeout: 300)
    }

    /// The symbol table of `program` as `nm` prints it (with `arguments`, such as `-D`).
    static func symbols(_ program: String, _ arguments: [String] = []) throws -> String {
        let result = try TestEnvironment.execute("/usr/bin/nm", arguments + [program], input: nil,
                                                 environment: ProcessInfo.processInfo.environment)
        guard result.status == 0 else { throw TestFailure("nm failed: \(result)") }
        return result.stdout
    }

    /// The shared libraries `program` names (`DT_NEEDED`), read by `readelf`.
    static func neededLibraries(_ program: String) throws -> [String] {
        let result = try TestEnvironment.execute("/usr/bin/readelf", ["-d", program], input: nil,
                                                 environment: ProcessInfo.processInfo.environment)
        guard result.status == 0 else { throw TestFailure("readelf failed: \(result)") }
        return result.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
            line.split(separator: "[").last?.split(separator: "]").first.map(String.init)
        }
    }
}
