import Glibc
import Synchronization
import Testing
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGatePAM
@testable import TouchGateStore
@testable import TouchGateSystem
@testable import TouchGateTerminal

/// The evaluation's driver (``Evaluation`` behind ``AuthContext``) with a real store and a fake
/// checker: the machine's actions reach the store and the checker as they should. The real PAM
/// stacks are exercised end to end (AuthContextTests, FingerprintTests, the CLI suites).
@Suite(.removesItsFiles) struct EvaluationTests {
    /// A checker that answers each call from a script, or waits (watching the interrupter, as
    /// the real ones do) until the evaluation is interrupted.
    final class ScriptedChecker: CredentialChecker, @unchecked Sendable {
        enum Step { case result(CredentialCheckResult), waitForInterruption }
        private let steps: Mutex<[Step]>
        let calls = Mutex<[String]>([])

        init(_ steps: [Step]) { self.steps = Mutex(steps) }

        func serviceExists(_ service: String) -> Bool { true }

        func check(service: String, user: String, prompts: PromptSource, interrupter: Interrupter,
                   emptyAnswerIsFallback: Bool) -> CredentialCheckResult {
            calls.withLock { $0.append(service) }
            let step = steps.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            switch step {
            case .result(let result)?:
                return result
            case .waitForInterruption?, nil:
                var descriptor = pollfd(fd: interrupter.fileDescriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&descriptor, 1, 60_000)
                var result = CredentialCheckResult(outcome: .failed(26), submittedAnswer: false)
                result.interruption = interrupter.pending
                return result
            }
        }
    }

    /// Types a line at every prompt (touchgate's own passcode prompt, before the scripted check)
    /// and remembers what was shown.
    final class Silent: PromptSource {
        let shown = Mutex<[String]>([])
        func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer { .answer(SecureBytes("typed".utf8)) }
        func show(_ message: String) { shown.withLock { $0.append(message) } }
    }

    static func result(_ outcome: PAMOutcome, submitted: Bool = true) -> EvaluationTests.ScriptedChecker.Step {
        .result(CredentialCheckResult(outcome: outcome, submittedAnswer: submitted))
    }

    static func store(enrolled: Bool) throws -> Store {
        let store = try Store(path: FilePath(temporaryStorePath()), clock: TestClock())
        if enrolled { try store.setEnrolled(true, user: "alice", session: nil) }
        try store.passcodeSucceededInThisBoot(user: "alice")
        return store
    }

    @Test func aCountedBadScanThenTheFallbackThenThePasscode() throws {
        let store = try Self.store(enrolled: true)
        var fallback = CredentialCheckResult(outcome: .failed(19), submittedAnswer: false)
        fallback.fallbackChosen = true
        let biometric = ScriptedChecker([Self.result(.noMatch, submitted: false), .result(fallback)])
        let passcode = ScriptedChecker([Self.result(.success)])
        let context = AuthContext(user: "alice", store: store, checker: passcode, biometricChecker: biometric, prompts: Silent())
        try context.evaluateSynchronously(.deviceOwner, reason: "test")
        #expect(biometric.calls.withLock { $0 } == ["touchgate-biometric", "touchgate-biometric"])
        #expect(passcode.calls.withLock { $0 } == ["touchgate"])
        let outcomes = try store.auditEntries(limit: 100).map(\.outcome)
        #expect(outcomes.contains("authenticationFailed"))
        #expect(try store.user("alice").lastSuccess != nil)
    }

    @Test func aTimeoutIsTakenBack() throws {
        let store = try Self.store(enrolled: true)
        let biometric = ScriptedChecker([Self.result(.unavailable, submitted: false)])
        let context = AuthContext(user: "alice", store: store, checker: ScriptedChecker([]), biometricChecker: biometric,
                                  prompts: Silent())
        #expect(throws: AuthError(.biometryNotAvailable)) { try context.evaluateSynchronously(.biometrics, reason: "test") }
        #expect(try store.user("alice").biometricFailures == 0)
    }

    /// However the tries are spread over evaluations, exactly max-biometric-failures scans reach the stack.
    @Test func lockoutAfterExactlyMaxFailures() throws {
        let store = try Self.store(enrolled: true)
        let maximum = try store.configuration(user: "alice").maxBiometricFailures
        let biometric = ScriptedChecker(Array(repeating: Self.result(.noMatch, submitted: false), count: maximum + 5))
        let context = AuthContext(user: "alice", store: store, checker: ScriptedChecker([]), biometricChecker: biometric,
                                  prompts: Silent())
        var ends: [AuthError.Code] = []
        for _ in 0..<4 {
            do { try context.evaluateSynchronously(.biometrics, reason: "test") } catch { ends.append(error.code) }
        }
        #expect(biometric.calls.withLock { $0.count } == maximum)
        #expect(ends.last == .biometryLockout)
        #expect(try store.user("alice").biometricFailures == maximum)
    }

    /// Runs an evaluation on a thread of its own (not the test runner's pool, which a blocked
    /// evaluation could starve), so the test thread can cancel it.
    final class Pending: @unchecked Sendable {
        final class Outcome: @unchecked Sendable {
            /// Written by the thread before it ends, read after `join`.
            var error: (any Error)?
        }
        private let outcome = Outcome()
        private let thread: HelperThread

        init(_ context: AuthContext) {
            let outcome = self.outcome
            thread = HelperThread {
                do { try context.evaluateSynchronously(.deviceOwner, reason: "test") } catch { outcome.error = error }
            }
        }

        func join() -> (any Error)? {
            thread.join()
            return outcome.error
        }
    }

    /// invalidate() and did-enter-background during a slow check: appCancel at once, nothing counted.
    @Test(arguments: [true, false])
    func cancelDuringASlowCheckIsAppCancel(invalidating: Bool) throws {
        let store = try Self.store(enrolled: true)
        let biometric = ScriptedChecker([.waitForInterruption])
        let context = AuthContext(user: "alice", store: store, checker: ScriptedChecker([]), biometricChecker: biometric,
                                  prompts: Silent())
        let pending = Pending(context)
        while biometric.calls.withLock({ $0.isEmpty }) { usleep(10_000) }
        let cancelled = ContinuousClock.now
        if invalidating { context.invalidate() } else { context.didEnterBackground() }
        let error = pending.join()
        #expect(error as? AuthError == AuthError(.appCancel))
        // Generous: the check waits a minute unless cancelled.
        #expect(ContinuousClock.now - cancelled < .seconds(20))
        #expect(try store.user("alice").biometricFailures == 0)
        if invalidating {
            #expect(throws: AuthError(.invalidContext)) { try context.evaluateSynchronously(.deviceOwner, reason: "again") }
        } else {
            // The context stays usable after a background, unlike after invalidate().
            let again = ScriptedChecker([Self.result(.success)])
            let next = AuthContext(user: "alice", store: store, checker: again, biometricChecker: again, prompts: Silent())
            try next.evaluateSynchronously(.deviceOwner, reason: "again")
        }
    }

    /// The real worker checker: invalidate() during a wait kills the worker's process group
    /// (the worker and its children), so nothing of it is left.
    @Test func invalidateDuringAWorkerWaitLeavesNoProcess() throws {
        let store = try Self.store(enrolled: true)
        var template = Array("/tmp/touchgate-worker-XXXXXX".utf8CString)
        let directory = String(cString: mkdtemp(&template)!)
        defer { _ = runToCompletion(["/bin/rm", "-rf", directory]) }
        // The stack's file only has to exist; the "worker" never runs PAM: it waits, as
        // pam_fprintd would for a finger, with a child of its own.
        mkdir(directory + "/pam", 0o700)
        try write("auth required pam_deny.so\n", to: directory + "/pam/touchgate-biometric")
        let script = directory + "/worker"
        try write("""
            #!/bin/sh
            echo $$ > \(directory)/worker.pid
            sleep 61 &
            echo $! > \(directory)/child.pid
            wait
            """, to: script)
        chmod(script, 0o700)
        let checker = WorkerCredentialChecker(base: PAMCredentialChecker(configurationDirectory: directory + "/pam"),
                                              executable: script)
        let context = AuthContext(user: "alice", store: store, checker: ScriptedChecker([]), biometricChecker: checker,
                                  prompts: Silent())
        let pending = Pending(context)
        var pids: [pid_t] = []
        for _ in 0..<3_000 where pids.count < 2 {
            usleep(10_000)
            pids = ["worker.pid", "child.pid"].compactMap { read(directory + "/" + $0).flatMap { pid_t($0) } }
        }
        #expect(pids.count == 2)
        let cancelled = ContinuousClock.now
        context.invalidate()
        #expect(pending.join() as? AuthError == AuthError(.appCancel))
        #expect(ContinuousClock.now - cancelled < .seconds(20))
        for pid in pids {
            // Gone, or a zombie left to init (the worker itself was reaped by the checker).
            var alive = true
            for _ in 0..<250 where alive {
                alive = kill(pid, 0) == 0 && !(read("/proc/\(pid)/stat")?.contains(") Z ") ?? true)
                if alive { usleep(20_000) }
            }
            #expect(!alive, "process \(pid) of the worker is still running")
        }
        #expect(try store.user("alice").biometricFailures == 0)
    }

    private func write(_ text: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw AuthError(.systemCancel) }
        defer { close(descriptor) }
        _ = text.withCString { Glibc.write(descriptor, $0, strlen($0)) }
    }

    private func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 512)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.trimmingWhitespace
    }
}

private extension String {
    var trimmingWhitespace: String {
        String(self.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
