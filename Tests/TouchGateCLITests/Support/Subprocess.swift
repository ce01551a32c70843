import Foundation
import Testing
import TestSupport
import TouchGate
import TouchGateSystem

/// A child process for the end-to-end tests, started with `posix_spawn`.
///
/// Not Foundation's `Process`: in Swift 6.3.1 its `run()` can read past a mapped page while it
/// lists `/proc/self/fd` (swift-corelibs-foundation #5472) and crash the whole test process when
/// many children come and go. The child starts with an empty signal mask and default signal
/// dispositions (the test runner blocks signals, and children would inherit that), descriptors
/// 0–2 only, standard input from a pipe the test writes to, and its output in files, so a
/// daemon it leaves behind (a tmux server) cannot hold the test waiting for end of file. It runs
/// in a session of its own (`setsid`), without the runner's controlling terminal: run from a
/// terminal, a child would otherwise prompt on it (`Password:`), wait for a key there, or be
/// stopped for touching it from the background, where a run without a terminal (CI) passes.
final class RunningProcess: @unchecked Sendable {
    let pid: pid_t
    private var inputDescriptor: Int32
    private let outputPath: String
    private let errorPath: String
    private let lock = NSLock()
    private var finished: (result: RunResult, bySignal: Bool)?

    /// Starts `command` (an absolute path and its arguments) in a new session, without a
    /// controlling terminal (`setsid`); with `inheritSignalMask` it keeps the caller's blocked
    /// signals, as a careless parent would hand them down.
    init(_ command: [String], environment: [String: String], newSession: Bool = true,
         inheritSignalMask: Bool = false) throws {
        let base = NSTemporaryDirectory() + "touchgate-child-\(UUID().uuidString)"
        outputPath = base + ".out"
        errorPath = base + ".err"
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw TestFailure("pipe: \(String(cString: strerror(errno)))") }
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        _ = Self.ignoreBrokenPipes

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3)
        }

        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = SpawnAttributes.clean(newSession: newSession, inheritSignals: inheritSignalMask) { attributes in
            posix_spawn(&pid, command[0], &actions, attributes, argv, envp)
        }
        close(ends[0])
        guard spawned == 0 else {
            close(ends[1])
            throw TestFailure("cannot start \(command[0]): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        inputDescriptor = ends[1]
    }

    deinit {
        if finished == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
        if inputDescriptor >= 0 { close(inputDescriptor) }
        unlink(outputPath)
        unlink(errorPath)
    }

    /// Runs `command` to completion with `input` as its whole standard input.
    static func run(
        _ command: [String], input: Data = Data(), environment: [String: String], newSession: Bool = true,
        timeout: TimeInterval = 60
    ) throws -> RunResult {
        let process = try RunningProcess(command, environment: environment, newSession: newSession)
        process.write(input)
        process.closeInput()
        return try process.wait(timeout: timeout)
    }

    /// ``run(_:input:environment:newSession:timeout:)`` for an async test: the child is started
    /// and waited for on a thread of its own (``onAThreadOfItsOwn(_:)``), and the test's task
    /// waits suspended. Swift Testing runs every test on the cooperative pool (two threads on a
    /// 2-CPU machine): a wait there would hold a thread every other test needs.
    static func runOnAThreadOfItsOwn(
        _ command: [String], input: Data = Data(), environment: [String: String], timeout: TimeInterval = 60
    ) async throws -> RunResult {
        try await onAThreadOfItsOwn { try run(command, input: input, environment: environment, timeout: timeout) }
    }

    /// Writing to a pipe whose reader exited raises SIGPIPE, which would end the whole test run.
    private static let ignoreBrokenPipes: Void = { _ = Glibc.signal(SIGPIPE, SIG_IGN) }()

    func write(_ text: String) {
        write(Data(text.utf8))
    }

    /// Writes to the child's standard input; a child that exited without reading is not an error here.
    func write(_ data: Data) {
        let descriptor = lock.withLock { inputDescriptor }
        guard descriptor >= 0 else { return }
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }

    /// Closes the child's standard input: it reads end of file from now on.
    func closeInput() {
        lock.withLock {
            if inputDescriptor >= 0 { close(inputDescriptor) }
            inputDescriptor = -1
        }
    }

    func signal(_ signal: Int32) {
        lock.withLock { if finished == nil { kill(pid, signal) } }
    }

    /// What the process has written to standard output so far.
    var outputSoFar: String {
        String(decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self)
    }

    /// What the process has written to standard error so far.
    var errorsSoFar: String {
        String(decoding: FileManager.default.contents(atPath: errorPath) ?? Data(), as: UTF8.self)
    }

    /// Waits until standard error contains `text` (a prompt), or fails after `timeout`.
    func waitForError(containing text: String, timeout: TimeInterval = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !errorsSoFar.contains(text) {
            guard Date() < deadline, isRunning else {
                throw TestFailure("'\(text)' never appeared on stderr: \(errorsSoFar)")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Whether it is still running (not yet reaped).
    var isRunning: Bool {
        lock.withLock {
            if finished != nil { return false }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return true }
            finish(status)
            return false
        }
    }

    /// True when it ended by a signal (its status is then 128 + the signal).
    var killedBySignal: Bool { lock.withLock { finished?.bySignal ?? false } }

    func wait(timeout: TimeInterval = 60) throws -> RunResult {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning {
            guard Date() < deadline else {
                kill(pid, SIGKILL)
                throw TestFailure("\(pid) did not finish in \(timeout) s; stderr: \(errorsSoFar)")
            }
            Thread.sleep(forTimeInterval: 0.003)
        }
        return lock.withLock { finished!.result }
    }

    private func finish(_ status: Int32) {
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift cannot import.
        let bySignal = (status & 0x7F) != 0
        let result = RunResult(
            status: bySignal ? 128 + (status & 0x7F) : (status >> 8) & 0xFF,
            stdout: String(decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self),
            stderr: String(decoding: FileManager.default.contents(atPath: errorPath) ?? Data(), as: UTF8.self))
        finished = (result, bySignal)
    }
}
