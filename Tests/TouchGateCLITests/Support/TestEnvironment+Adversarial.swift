import Foundation
import Testing

/// Additions to ``TestEnvironment`` for the adversarial suites (crash safety, store faults, hostile
/// input, permissions, secret hygiene).
extension TestEnvironment {
    /// Enrolls `user` (passcode, then finger) with the lock still off, so settings need no evaluation.
    func adversarialEnroll() throws {
        let enroll = try runRaw(["-S", "enroll"], input: Data((Self.passcode[user]! + "\n" + Self.finger[user]! + "\n").utf8))
        guard enroll.status == 0 else { throw TestFailure("enroll failed: \(enroll)") }
    }

    /// `config set KEY VALUE`, which must succeed (the lock must be off).
    func adversarialConfig(_ key: String, _ value: String) throws {
        let result = try runRaw(["config", "set", key, "--", value])
        guard result.status == 0 else { throw TestFailure("config set \(key) failed: \(result)") }
    }

    /// `--json status`, parsed.
    func adversarialStatus() throws -> [String: Any] {
        let result = try runRaw(["--json", "status"])
        guard result.status == 0, let json = result.json else { throw TestFailure("status failed: \(result)") }
        return json
    }

    /// The raw bytes of the store and of its `-wal` and `-shm` files, as they are now (missing: empty).
    func rawStoreFiles(_ path: String? = nil) -> [String: Data] {
        let base = path ?? storePath
        var files: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm", "-journal"] {
            files[suffix] = FileManager.default.contents(atPath: base + suffix) ?? Data()
        }
        return files
    }

    /// The total number of calls that reached any of the test stacks.
    func allCalls() -> Int {
        ["touchgate", "touchgate-biometric", "touchgate-slow", "touchgate-permit", "touchgate-unavailable",
         "touchgate-unix"].reduce(0) { $0 + calls($1) }
    }

    /// Runs `touchgate arguments…` with standard input read from a file holding exactly `input`
    /// (any bytes: NUL, invalid UTF-8), standard output and error to files.
    ///
    /// `prefix` runs in front of the binary (for example `setpriv …` or `sh -c 'umask 0; exec "$0" "$@"'`).
    func runRaw(
        _ arguments: [String], input: Data = Data(), prefix: [String] = [], environment extra: [String: String] = [:],
        timeout: TimeInterval = 60
    ) throws -> RunResult {
        var environment = self.environment
        for (name, value) in extra { environment[name] = value }
        return try Self.spawn(prefix + [Self.binary] + arguments, input: input, environment: environment,
                              in: directory.path, timeout: timeout)
    }

    /// ``runRaw(_:input:prefix:environment:timeout:)`` with text input, like ``run(_:input:timeout:)``.
    func runText(_ arguments: [String], input: String = "") throws -> RunResult {
        try runRaw(arguments, input: Data(input.utf8))
    }

    /// Runs SQL through the `sqlite3` command-line tool against the store (or `path`).
    func sql(_ statement: String, path: String? = nil) throws -> String {
        let result = try Self.spawn(["/usr/bin/sqlite3", path ?? storePath, statement],
                                    environment: ProcessInfo.processInfo.environment, in: directory.path, timeout: 60)
        guard result.status == 0 else { throw TestFailure("sqlite3 failed: \(result)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts `touchgate arguments…` with `input` as its whole standard input, without waiting.
    func startRaw(_ arguments: [String], input: String) throws -> RunningProcess {
        let process = try RunningProcess([Self.binary] + arguments, environment: environment)
        process.write(input)
        process.closeInput()
        return process
    }

    /// Runs a program other than touchgate to completion (for `mount`, `chown`, `chmod`, …).
    @discardableResult
    static func tool(_ executable: String, _ arguments: [String]) throws -> RunResult {
        try spawn([executable] + arguments, environment: ProcessInfo.processInfo.environment,
                  in: NSTemporaryDirectory(), timeout: 60)
    }

    /// Runs `command` to completion with `input` as its standard input (see ``RunningProcess``).
    static func spawn(
        _ command: [String], input: Data = Data(), environment: [String: String], in directory: String,
        timeout: TimeInterval
    ) throws -> RunResult {
        try RunningProcess.run(command, input: input, environment: environment, timeout: timeout)
    }
}

extension Data {
    /// True when `needle` occurs anywhere in these bytes.
    func containsBytes(_ needle: String) -> Bool {
        range(of: Data(needle.utf8)) != nil
    }
}
