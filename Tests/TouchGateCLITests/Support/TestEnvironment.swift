import Foundation
import Testing

/// What one run of the `touchgate` binary produced.
struct RunResult: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String

    /// Standard output parsed as one JSON object, or `nil`.
    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
    }

    var description: String { "exit \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }
}

/// A private world for end-to-end tests: a temporary directory with the test PAM stacks from
/// `pam/test` rendered into it (run through pam_wrapper), and a store file of its own.
///
/// Every run is the real `touchgate` binary against real libpam and a real SQLite file.
final class TestEnvironment: @unchecked Sendable {
    /// The package root, found from this file's path.
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// The built binary: `TOUCHGATE_BINARY`, else beside the test bundle, else `.build/debug`.
    static let binary: String = {
        if let explicit = ProcessInfo.processInfo.environment["TOUCHGATE_BINARY"] { return explicit }
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("touchgate").path
        if FileManager.default.isExecutableFile(atPath: besideTests) { return besideTests }
        return packageRoot.appendingPathComponent(".build/debug/touchgate").path
    }()

    let directory: URL
    let pamDirectory: URL
    var storePath: String
    var user = "alice"
    /// Added to every run's environment (after the defaults).
    var extraEnvironment: [String: String] = [:]

    static let passcode = ["alice": "alice-passcode", "bob": "bob-passcode"]
    static let finger = ["alice": "alice-finger", "bob": "bob-finger"]

    init() throws {
        directory = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("touchgate-test-\(UUID().uuidString)")
        pamDirectory = directory.appendingPathComponent("pam")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        storePath = directory.appendingPathComponent("state/touchgate.sqlite").path
        let render = try Self.execute(
            Self.packageRoot.appendingPathComponent("scripts/render-pam-stacks").path, [pamDirectory.path],
            environment: ProcessInfo.processInfo.environment)
        guard render.status == 0 else { throw TestFailure("render-pam-stacks failed: \(render)") }
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The environment of a run: pam_wrapper redirecting `pam_start()` to the rendered stacks.
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in ["TOUCHGATE_STORE", "TOUCHGATE_USER", "TOUCHGATE_SESSION", "TOUCHGATE_PAM_CONFDIR", "TMUX"] {
            environment[name] = nil
        }
        environment["LD_PRELOAD"] = "libpam_wrapper.so"
        environment["PAM_WRAPPER"] = "1"
        environment["PAM_WRAPPER_SERVICE_DIR"] = pamDirectory.path
        environment["TOUCHGATE_STORE"] = storePath
        environment["TOUCHGATE_USER"] = user
        environment["HOME"] = directory.path
        for (name, value) in extraEnvironment { environment[name] = value }
        return environment
    }

    /// Runs `touchgate arguments…` to completion, feeding `input` on standard input.
    @discardableResult
    func run(_ arguments: [String], input: String? = nil, timeout: TimeInterval = 60) throws -> RunResult {
        try Self.execute(Self.binary, arguments, input: input, environment: environment, timeout: timeout)
    }

    /// Starts `touchgate arguments…` without waiting; standard input stays open until closed.
    func start(_ arguments: [String]) throws -> RunningProcess {
        try RunningProcess(Self.binary, arguments, environment: environment)
    }

    /// How many authentications reached the PAM stack `service` (counted by its pam_exec step).
    func calls(_ service: String) -> Int {
        let path = pamDirectory.appendingPathComponent("calls-\(service)").path
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
        return text.split(separator: "\n").count
    }

    /// Runs SQL through the `sqlite3` command-line tool against the store.
    func sqlite(_ sql: String, path: String? = nil) throws -> String {
        let result = try Self.execute("/usr/bin/sqlite3", [path ?? storePath, sql], environment: ProcessInfo.processInfo.environment)
        guard result.status == 0 else { throw TestFailure("sqlite3 failed: \(result)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Turns the lock on and enrolls `user` (passcode, then finger), as a person would.
    func enableAndEnroll() throws {
        let passcode = Self.passcode[user]!
        let enable = try run(["-S", "enable"], input: passcode + "\n")
        guard enable.status == 0 else { throw TestFailure("enable failed: \(enable)") }
        let enroll = try run(["-S", "enroll"], input: passcode + "\n" + Self.finger[user]! + "\n")
        guard enroll.status == 0 else { throw TestFailure("enroll failed: \(enroll)") }
    }

    static func execute(
        _ executable: String, _ arguments: [String], input: String? = nil, environment: [String: String],
        timeout: TimeInterval = 60
    ) throws -> RunResult {
        let process = try RunningProcess(executable, arguments, environment: environment)
        if let input { process.write(input) }
        process.closeInput()
        return try process.wait(timeout: timeout)
    }
}

/// A child process with piped standard streams, for tests that signal or feed it over time.
final class RunningProcess: @unchecked Sendable {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    private var collectedOutput = Data()
    private var collectedErrors = Data()
    private let lock = NSLock()

    init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock { self?.collectedOutput.append(data) }
        }
        errors.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock { self?.collectedErrors.append(data) }
        }
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }

    func write(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
    }

    func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// What the process has written to standard error so far.
    var errorsSoFar: String {
        lock.withLock { String(decoding: collectedErrors, as: UTF8.self) }
    }

    /// Waits until standard error contains `text` (a prompt), or fails after `timeout`.
    func waitForError(containing text: String, timeout: TimeInterval = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !errorsSoFar.contains(text) {
            guard Date() < deadline, process.isRunning else {
                throw TestFailure("'\(text)' never appeared on stderr: \(errorsSoFar)")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    func wait(timeout: TimeInterval = 60) throws -> RunResult {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            guard Date() < deadline else {
                process.terminate()
                kill(process.processIdentifier, SIGKILL)
                throw TestFailure("\(process.executableURL!.lastPathComponent) did not finish in \(timeout) s")
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        output.fileHandleForReading.readabilityHandler = nil
        errors.fileHandleForReading.readabilityHandler = nil
        let restOut = output.fileHandleForReading.readDataToEndOfFile()
        let restErr = errors.fileHandleForReading.readDataToEndOfFile()
        return lock.withLock {
            collectedOutput.append(restOut)
            collectedErrors.append(restErr)
            return RunResult(status: process.terminationStatus,
                             stdout: String(decoding: collectedOutput, as: UTF8.self),
                             stderr: String(decoding: collectedErrors, as: UTF8.self))
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
