import Foundation
import TestSupport
import Testing
import TouchGate

/// A real fingerprint through fprintd: pam_fprintd in the test stack `touchgate-fprintd`, fprintd
/// with libfprint's virtual device on a private system bus (``FingerprintReader``), scans sent to
/// the device's socket while `touchgate` waits for them. Serialized: one reader for the suite.
@Suite(.serialized) struct FingerprintTests {
    static let service = "touchgate-fprintd"

    /// Starts `touchgate -S --json ARGUMENTS` in `world`, waits until pam_fprintd waits for a
    /// finger, then sends `command` to the device (when given) and returns the running process.
    func startWaiting(_ world: TestEnvironment, _ reader: FingerprintReader, _ arguments: [String],
                      then command: String? = nil) throws -> RunningProcess {
        let process = try world.start(["-S", "--json"] + arguments)
        try process.waitForError(containing: FingerprintReader.waitingMessage, timeout: 20)
        if let command { try reader.send(command) }
        return process
    }

    @Test func goodScanSucceeds() throws {
        let reader = try FingerprintReader.start()
        try reader.ensureRunning()
        let world = try TestEnvironment.withFingerprintReader(reader)
        let auth = try startWaiting(world, reader, ["auth", "--policy", "biometrics"], then: "SCAN good")
        let result = try auth.wait(timeout: 30)
        CoreExpect.outcome(result, "success", policy: "biometrics")
        #expect(world.calls(Self.service) == 1)
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 0)
    }

    /// The pids of the biometric workers running the stack `service` for `world`: a worker one of
    /// whose ancestors is this test process (an `auth` it started, or the library in-process) or
    /// names the world's directory (the tmux servers and clients of its panes and gates). Workers
    /// of other test runs on the machine (another checkout's suites at the same time) and orphans
    /// of earlier tests are not this test's.
    static func workers(_ service: String, of world: TestEnvironment) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                  let command = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { return nil }
            let words = command.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard words.count >= 3, words[1] == "__biometric-worker", words[2] == service else { return nil }
            return belongs(pid, to: world) ? pid : nil
        }
    }

    /// Whether an ancestor of `pid` is this test process or a process whose command line names
    /// `world`'s directory.
    static func belongs(_ pid: pid_t, to world: TestEnvironment) -> Bool {
        let marker = Data((world.directory.path + "/").utf8)
        var ancestor = parent(of: pid)
        for _ in 0..<64 {
            guard let current = ancestor, current > 1 else { return false }
            if current == getpid() { return true }
            if let command = FileManager.default.contents(atPath: "/proc/\(current)/cmdline"),
               command.range(of: marker) != nil { return true }
            ancestor = parent(of: current)
        }
        return false
    }

    /// The parent of `pid`, from `/proc/PID/stat` ("PID (COMM) STATE PPID …"; COMM may hold
    /// spaces and parentheses, so the fields are read after its last ")").
    static func parent(of pid: pid_t) -> pid_t? {
        guard let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return nil }
        let text = String(decoding: stat, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }

    /// A cancel during a wait for a finger ends `auth` at once (the stack waits 60 s), kills the
    /// worker, takes the try back, and leaves the reader free: the next verify takes a scan.
    @Test(arguments: [(SIGINT, "userCancel"), (SIGUSR1, "appCancel"), (SIGTERM, "systemCancel")])
    func cancelDuringTheWaitEndsItAndFreesTheReader(signal: Int32, outcome: String) throws {
        let reader = try FingerprintReader.start()
        try reader.ensureRunning()
        let world = try TestEnvironment.withFingerprintReader(reader)
        try world.setConfig("biometric-service", "touchgate-fprintd-slow")
        let auth = try startWaiting(world, reader, ["auth", "--policy", "biometrics"])
        #expect(Self.workers("touchgate-fprintd-slow", of: world).count == 1, "the wait runs in a worker")
        auth.signal(signal)
        // Far less than the stack's 60 s: only a killed wait ends this soon.
        let cancelled = try auth.wait(timeout: 20)
        CoreExpect.outcome(cancelled, outcome, policy: "biometrics")
        #expect(Self.workers("touchgate-fprintd-slow", of: world).isEmpty, "no worker left behind")
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 0, "no finger was checked")
        let next = try startWaiting(world, reader, ["auth", "--policy", "biometrics"], then: "SCAN good")
        CoreExpect.outcome(try next.wait(timeout: 30), "success", policy: "biometrics")
        #expect(world.calls("touchgate-fprintd-slow") == 2)
    }

    /// Waits until `text` appeared `count` times on the process's standard error.
    func waitForError(_ process: RunningProcess, _ text: String, count: Int, timeout: TimeInterval = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while process.errorsSoFar.components(separatedBy: text).count - 1 < count {
            guard Date() < deadline, process.isRunning else {
                throw TestFailure("'\(text)' did not appear \(count) times: \(process.errorsSoFar)")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Each wrong scan is one counted failure, written as it happens; `max-biometric-failures`
    /// wrong scans lock the factor out, exactly: the next evaluation never reaches the reader, and
    /// the passcode clears it.
    @Test func wrongScansCountOneByOneAndLockOutExactly() throws {
        let reader = try FingerprintReader.start()
        try reader.ensureRunning()
        let world = try TestEnvironment.withFingerprintReader(reader)
        try world.setConfig("max-biometric-failures", "3")
        // One verify per process (see FingerprintReader.send): each run is one scan.
        try world.setConfig("biometric-tries-per-evaluation", "1")
        for scan in 1...3 {
            let auth = try startWaiting(world, reader, ["auth", "--policy", "biometrics"], then: "SCAN bad")
            CoreExpect.outcome(try auth.wait(timeout: 30), "authenticationFailed", policy: "biometrics")
            #expect(try world.statusJSON()["biometricFailures"] as? Int == scan, "scan \(scan) counted")
            #expect(try world.statusJSON()["biometryLockedOut"] as? Bool == (scan == 3))
        }
        #expect(world.calls(Self.service) == 3, "one call of the stack per scan")
        var status = try world.statusJSON()
        #expect(status["biometricFailures"] as? Int == 3)
        #expect(status["biometryLockedOut"] as? Bool == true)
        let locked = try world.run(["-S", "--json", "auth", "--policy", "biometrics"])
        CoreExpect.outcome(locked, "biometryLockout", policy: "biometrics")
        #expect(world.calls(Self.service) == 3, "a locked-out factor never reaches the reader")
        let passcode = try world.run(["-S", "--json", "auth"], input: "alice-passcode\n")
        CoreExpect.outcome(passcode, "success", policy: "device-owner")
        status = try world.statusJSON()
        #expect(status["biometricFailures"] as? Int == 0)
        #expect(status["biometryLockedOut"] as? Bool == false)
        #expect(world.calls(Self.service) == 3)
    }

    /// A device error ends the try uncounted: `biometryNotAvailable` under `--policy biometrics`;
    /// under device-owner the reason is shown and the passcode asked, never an unlock by itself.
    @Test func deviceErrorNeverUnlocksAndOffersThePasscode() throws {
        let reader = try FingerprintReader.start()
        try reader.ensureRunning()
        let world = try TestEnvironment.withFingerprintReader(reader)
        let biometrics = try startWaiting(world, reader, ["auth", "--policy", "biometrics"], then: "ERROR 0")
        CoreExpect.outcome(try biometrics.wait(timeout: 30), "biometryNotAvailable", policy: "biometrics")
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 0)

        let deviceOwner = try startWaiting(world, reader, ["auth"], then: "ERROR 0")
        try deviceOwner.waitForError(containing: "Password:")
        #expect(deviceOwner.errorsSoFar.contains("The biometric factor is not available. Use the passcode."))
        #expect(deviceOwner.isRunning, "no unlock without the passcode")
        deviceOwner.write("alice-passcode\n")
        CoreExpect.outcome(try deviceOwner.wait(timeout: 30), "success", policy: "device-owner")
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 0)
    }

    /// fprintd killed while touchgate waits for a finger: no unlock, no hang, nothing counted.
    @Test func fprintdKilledDuringTheWaitNeverUnlocks() throws {
        let reader = try FingerprintReader.start()
        try reader.ensureRunning()
        let world = try TestEnvironment.withFingerprintReader(reader)
        try world.setConfig("biometric-service", "touchgate-fprintd-slow")
        let auth = try startWaiting(world, reader, ["auth", "--policy", "biometrics"])
        try reader.killFprintd()
        defer { try? reader.ensureRunning() }
        // Well before the stack's 60 s timeout.
        let result = try auth.wait(timeout: 30)
        CoreExpect.outcome(result, "biometryNotAvailable", policy: "biometrics")
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 0)
        #expect(Self.workers("touchgate-fprintd-slow", of: world).isEmpty)
    }

    /// `-S` while the reader waits: an empty line is the fallback. Under device-owner the wait ends
    /// at once, the passcode is asked (nothing counted for the finger), and the reader is free for
    /// the next verify; under `--policy biometrics` it is `userFallback`.
    @Test func enterDuringTheWaitIsTheFallback() throws {
        let reader = try FingerprintReader.start()
        try reader.ensureRunning()
        let world = try TestEnvironment.withFingerprintReader(reader)
        try world.setConfig("biometric-service", "touchgate-fprintd-slow")
        let deviceOwner = try startWaiting(world, reader, ["auth"])
        deviceOwner.write("\n")
        try deviceOwner.waitForError(containing: "Password:", timeout: 20)
        #expect(Self.workers("touchgate-fprintd-slow", of: world).isEmpty, "the wait ended with the Enter")
        deviceOwner.write("alice-passcode\n")
        CoreExpect.outcome(try deviceOwner.wait(timeout: 20), "success", policy: "device-owner")

        let biometrics = try startWaiting(world, reader, ["auth", "--policy", "biometrics"])
        biometrics.write("\n")
        CoreExpect.outcome(try biometrics.wait(timeout: 20), "userFallback", policy: "biometrics")
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 0)

        let next = try startWaiting(world, reader, ["auth", "--policy", "biometrics"], then: "SCAN good")
        CoreExpect.outcome(try next.wait(timeout: 30), "success", policy: "biometrics")
    }

    /// `-S` under device-owner: a line typed while the reader waits is the passcode: the wait ends
    /// and that line is the one passcode try, with no scan at all. Under `--policy biometrics` a
    /// typed line is never a passcode: it is dropped and the wait goes on.
    @Test func passcodeTypedDuringTheWaitSucceedsWithoutAScan() throws {
        let reader = try FingerprintReader.start()
        try reader.ensureRunning()
        let world = try TestEnvironment.withFingerprintReader(reader)
        try world.setConfig("biometric-service", "touchgate-fprintd-slow")
        let passcodeCalls = world.calls("touchgate")
        let auth = try startWaiting(world, reader, ["auth"])
        auth.write("alice-passcode\n")
        CoreExpect.outcome(try auth.wait(timeout: 20), "success", policy: "device-owner")
        #expect(world.calls("touchgate") == passcodeCalls + 1, "one passcode try")
        #expect(try world.statusJSON()["biometricFailures"] as? Int == 0)
        #expect(Self.workers("touchgate-fprintd-slow", of: world).isEmpty)

        let biometrics = try startWaiting(world, reader, ["auth", "--policy", "biometrics"])
        biometrics.write("alice-passcode\n")
        // Give the wait time to read the line (no output says it did); it must still be waiting after.
        Thread.sleep(forTimeInterval: 0.5)
        #expect(biometrics.isRunning, "a typed line is no passcode under --policy biometrics")
        try reader.send("SCAN good")
        CoreExpect.outcome(try biometrics.wait(timeout: 30), "success", policy: "biometrics")
        #expect(world.calls("touchgate") == passcodeCalls + 1, "the passcode stack never ran")
    }

    /// A remote session (`SSH_CONNECTION`): the reader is never used. `--policy biometrics` is
    /// `biometryNotAvailable` at once and says why, `can-evaluate` says so too, device-owner asks
    /// the passcode straight away, and the stacks get the client as `PAM_RHOST`.
    @Test func aRemoteSessionNeverWaitsForTheReader() throws {
        let reader = try FingerprintReader.start()
        try reader.ensureRunning()
        let world = try TestEnvironment.withFingerprintReader(reader)
        try world.setConfig("biometric-service", "touchgate-fprintd-slow")
        world.extraEnvironment["SSH_CONNECTION"] = "203.0.113.7 52144 192.0.2.1 22"
        let biometrics = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], timeout: 20)
        CoreExpect.outcome(biometrics, "biometryNotAvailable", policy: "biometrics")
        let said = try world.run(["-S", "auth", "--policy", "biometrics"], timeout: 20)
        #expect(said.status == 6 && said.stderr.contains("remote session (from 203.0.113.7)"), "\(said)")
        let check = try world.run(["--json", "can-evaluate", "--policy", "biometrics"])
        CoreExpect.outcome(check, "biometryNotAvailable", policy: "biometrics")
        let checkSaid = try world.run(["can-evaluate", "--policy", "biometrics"])
        #expect(checkSaid.status == 6 && checkSaid.stderr.contains("remote session"), "\(checkSaid)")
        let deviceOwner = try world.run(["-S", "--json", "auth"], input: "alice-passcode\n", timeout: 20)
        CoreExpect.outcome(deviceOwner, "success", policy: "device-owner")
        #expect(!deviceOwner.stderr.contains(FingerprintReader.waitingMessage))
        #expect(world.calls("touchgate-fprintd-slow") == 0, "the reader's stack never ran")
        let rhost = try String(contentsOf: world.pamDirectory.appendingPathComponent("rhost-touchgate"), encoding: .utf8)
        #expect(rhost == "203.0.113.7\n")

        world.extraEnvironment["SSH_CONNECTION"] = nil
        world.extraEnvironment["SSH_TTY"] = "/dev/pts/9"
        let ttyOnly = try world.run(["--json", "can-evaluate", "--policy", "biometrics"])
        CoreExpect.outcome(ttyOnly, "biometryNotAvailable", policy: "biometrics")
    }

    /// Remembers what the stack said; never has an answer.
    final class ShownMessages: PromptSource, @unchecked Sendable {
        private let lock = NSLock()
        private var shown: [String] = []
        func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer { .endOfInput }
        func show(_ message: String) { lock.withLock { shown.append(message) } }
        var all: [String] { lock.withLock { shown } }
    }

    /// The library: `AuthContext.invalidate()` during a wait for a finger ends the evaluation with
    /// `appCancel` at once (the stack waits 60 s), the worker gone and nothing counted.
    @Test func invalidateDuringTheWaitIsAppCancel() async throws {
        // Made on a thread of its own: starting fprintd and making the world run processes.
        let (reader, world) = try await onAThreadOfItsOwn { () throws -> (FingerprintReader, TestEnvironment) in
            let reader = try FingerprintReader.start()
            try reader.ensureRunning()
            let world = try TestEnvironment.withFingerprintReader(reader)
            try world.setConfig("biometric-service", "touchgate-fprintd-slow")
            return (reader, world)
        }
        // The worker inherits this process's environment: it must reach the test's fprintd.
        setenv("DBUS_SYSTEM_BUS_ADDRESS", reader.busAddress, 1)
        let store = try Store(path: FilePath(world.storePath))
        let prompts = ShownMessages()
        let checker = PAMCredentialChecker(configurationDirectory: world.pamDirectory.path)
        let context = AuthContext(
            user: "alice", store: store, session: "library", checker: checker,
            biometricChecker: WorkerCredentialChecker(base: checker, executable: TestEnvironment.binary), prompts: prompts)
        let evaluation = Task { () -> AuthError? in
            do {
                try await context.evaluate(.biometrics, reason: "library")
                return nil
            } catch let error as AuthError {
                return error
            }
        }
        try await eventually("the wait for a finger", timeout: 30) {
            prompts.all.contains { $0.contains(FingerprintReader.waitingMessage) }
        }
        #expect(Self.workers("touchgate-fprintd-slow", of: world).count == 1)
        context.invalidate()
        let error = try await withThrowingTaskGroup(of: AuthError?.self) { group in
            group.addTask { try await evaluation.value }
            group.addTask {
                try await Task.sleep(for: .seconds(20))
                throw TestFailure("the evaluation did not end within 20 s of invalidate()")
            }
            let first = try await group.next()!
            group.cancelAll()
            return first
        }
        #expect(error?.code == .appCancel)
        #expect(Self.workers("touchgate-fprintd-slow", of: world).isEmpty)
        #expect(try await onAThreadOfItsOwn { try world.statusJSON()["biometricFailures"] as? Int } == 0)
    }

    /// At the terminal (no `-S`), `auth` under device-owner while the reader waits: the cover of
    /// the wait says what to do, the passcode typed (echo off) and Enter ends the wait and is the
    /// one passcode try; Enter alone goes to the passcode prompt.
    @Test func passcodeTypedAtTheTerminalDuringTheWait() async throws {
        // Made on a thread of its own: starting fprintd and making the world run processes.
        let world = try await onAThreadOfItsOwn { () throws -> TestEnvironment in
            let reader = try FingerprintReader.start()
            try reader.ensureRunning()
            let world = try TestEnvironment.withFingerprintReader(reader)
            try world.setConfig("biometric-service", "touchgate-fprintd-slow")
            return world
        }
        let pane = try await PaneTerminal(world: world, command: """
            '\(TestEnvironment.binary)' auth; echo "AUTH-EXIT=$?"; '\(TestEnvironment.binary)' auth; echo "AUTH2-EXIT=$?"; sleep 600
            """)
        defer { pane.shutdown() }
        try await pane.waitForScreen(containing: "type your passcode and press Enter", timeout: 20)
        _ = try await pane.waitForScreen(containing: FingerprintReader.waitingMessage)
        try await pane.typeLine("alice-passcode")
        let screen = try await pane.waitForScreen(containing: "AUTH-EXIT=", timeout: 20)
        #expect(screen.contains("AUTH-EXIT=0"), "\(screen)")
        #expect(!screen.contains("alice-passcode"), "echo stays off: \(screen)")

        // The second auth: Enter alone leaves the wait for the passcode prompt.
        try await pane.waitForScreen("the second wait", timeout: 20) {
            $0.components(separatedBy: "type your passcode and press Enter").count == 3
        }
        try await pane.typeLine("")
        // The prompt itself: what is typed before it is discarded.
        _ = try await pane.waitForScreen(containing: "Password:", timeout: 20)
        try await pane.typeLine("alice-passcode")
        let second = try await pane.waitForScreen(containing: "AUTH2-EXIT=", timeout: 20)
        #expect(second.contains("AUTH2-EXIT=0"), "\(second)")
        #expect(world.calls("touchgate-fprintd-slow") == 2)
        #expect(try await onAThreadOfItsOwn { try world.statusJSON()["biometricFailures"] as? Int } == 0)
        #expect(Self.workers("touchgate-fprintd-slow", of: world).isEmpty)
    }
}
