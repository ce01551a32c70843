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
    /// The world's `XDG_RUNTIME_DIR` (0700): where a user's sockets live, the world's own, so
    /// nothing the test starts can be reached by the host's touchgate processes, nor reach theirs.
    let runtimeDirectory: String
    var storePath: String
    var user = "alice"
    /// Added to every run's environment (after the defaults).
    var extraEnvironment: [String: String] = [:]
    /// Runs go through pam_wrapper (`pam_start()` redirected) instead of `pam_start_confdir`.
    let usesPAMWrapper: Bool

    static let passcode = ["alice": "alice-passcode", "bob": "bob-passcode"]
    static let finger = ["alice": "alice-finger", "bob": "bob-finger"]

    /// A world whose runs read the test stacks through `pam_start_confdir` (`TOUCHGATE_PAM_CONFDIR`),
    /// or, with `pamWrapper`, through `pam_start()` redirected by pam_wrapper.
    ///
    /// Both are the real libpam and the same stacks. pam_wrapper copies the stacks of each process
    /// into one of 62 directories `/tmp/pam.X`, chosen without locking and deleted at exit, so
    /// processes that start together can share one and lose it ("error reading PAM configuration
    /// file"): only the serialized ``PAMWrapperTests`` use it, so no two wrapped processes overlap.
    init(pamWrapper: Bool = false) throws {
        usesPAMWrapper = pamWrapper
        directory = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("touchgate-test-\(UUID().uuidString)")
        pamDirectory = directory.appendingPathComponent("pam")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Short (a socket's path has 108 bytes), 0700 as mkdtemp makes it.
        var template = Array("/tmp/tgrun-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp: \(String(cString: strerror(errno)))") }
        runtimeDirectory = String(cString: made)
        storePath = directory.appendingPathComponent("state/touchgate.sqlite").path
        let render = try Self.execute(
            Self.packageRoot.appendingPathComponent("scripts/render-pam-stacks").path, [pamDirectory.path],
            environment: ProcessInfo.processInfo.environment)
        guard render.status == 0 else { throw TestFailure("render-pam-stacks failed: \(render)") }
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
        try? FileManager.default.removeItem(atPath: runtimeDirectory)
    }

    /// The environment of a run: the world's store and user, and its PAM stacks.
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in ["TOUCHGATE_STORE", "TOUCHGATE_USER", "TOUCHGATE_SESSION", "TOUCHGATE_PAM_CONFDIR", "TMUX",
                     // A test run from inside a touchgate shell or an integrated shell of the host.
                     "TOUCHGATE_SHELL_SESSION", "TOUCHGATE_HOOK_STORE",
                     // The host's own directories: the world's come from its HOME and runtimeDirectory.
                     "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME",
                     "DBUS_SESSION_BUS_ADDRESS",
                     "LD_PRELOAD", "PAM_WRAPPER", "PAM_WRAPPER_SERVICE_DIR",
                     // A test run started over SSH must not make every world a remote session.
                     "SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"] {
            environment[name] = nil
        }
        if usesPAMWrapper {
            environment["LD_PRELOAD"] = "libpam_wrapper.so"
            environment["PAM_WRAPPER"] = "1"
            environment["PAM_WRAPPER_SERVICE_DIR"] = pamDirectory.path
        } else {
            environment["TOUCHGATE_PAM_CONFDIR"] = pamDirectory.path
        }
        environment["TOUCHGATE_STORE"] = storePath
        environment["TOUCHGATE_USER"] = user
        environment["HOME"] = directory.path
        // tmux's socket directory (which `touchgate watch` scans for servers to lock): the
        // world's own, never the host's /tmp/tmux-UID.
        environment["TMUX_TMPDIR"] = directory.path
        environment["TMUX_PANE"] = nil
        // The owners' channels (OwnerChannelDirectory): the world's own, so a watcher or a
        // `touchgate event` of the host never reaches this world's owners, nor its of the host's.
        environment["XDG_RUNTIME_DIR"] = runtimeDirectory
        for (name, value) in extraEnvironment { environment[name] = value }
        return environment
    }

    /// Runs `touchgate arguments…` to completion, feeding `input` on standard input.
    @discardableResult
    func run(_ arguments: [String], input: String? = nil, timeout: TimeInterval = 60) throws -> RunResult {
        try Self.execute(Self.binary, arguments, input: input, environment: environment, timeout: timeout)
    }

    /// Starts `touchgate arguments…` without waiting; standard input stays open until closed.
    func start(_ arguments: [String], inheritSignalMask: Bool = false) throws -> RunningProcess {
        try RunningProcess([Self.binary] + arguments, environment: environment, inheritSignalMask: inheritSignalMask)
    }

    /// How many authentications reached the PAM stack `service` (counted by its pam_exec step).
    func calls(_ service: String) -> Int {
        let path = pamDirectory.appendingPathComponent("calls-\(service)").path
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
        return text.split(separator: "\n").count
    }

    /// From now on, each call of the stack `service` (`touchgate-gated`) waits in its `hold` step
    /// until ``release(_:)``.
    func holdCalls(_ service: String) throws {
        try touch("hold-\(service)")
    }

    /// Lets the held call of the stack `service` go on.
    func release(_ service: String) throws {
        try touch("release-\(service)")
    }

    private func touch(_ name: String) throws {
        let path = pamDirectory.appendingPathComponent(name).path
        guard FileManager.default.createFile(atPath: path, contents: Data()) else {
            throw TestFailure("cannot create \(path)")
        }
    }

    /// `sqlite3` options that wait for a lock instead of failing at once with "database is
    /// locked": a touchgate process (a gate, a shell's hook) may be writing at the same moment.
    static let sqliteWaiting = ["-cmd", ".timeout 10000"]

    /// Runs SQL through the `sqlite3` command-line tool against the store.
    func sqlite(_ sql: String, path: String? = nil) throws -> String {
        let result = try Self.execute("/usr/bin/sqlite3", Self.sqliteWaiting + [path ?? storePath, sql],
                                      environment: ProcessInfo.processInfo.environment)
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
        try RunningProcess.run([executable] + arguments, input: input.map { Data($0.utf8) } ?? Data(),
                               environment: environment, timeout: timeout)
    }
}

extension TestEnvironment {
    /// Copies an executable the test will run, through `cp(1)`: the test process never holds a
    /// file descriptor open for writing on it. (With `FileManager.copyItem` another test's child,
    /// forked while the copy was written, inherited that descriptor until its own exec, and
    /// executing the copy then failed with ETXTBSY, "Text file busy".)
    static func copyExecutable(_ source: String, to destination: String) throws {
        let copy = try execute("/bin/cp", [source, destination], environment: [:])
        guard copy.status == 0 else { throw TestFailure("cp \(source) \(destination): \(copy)") }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
