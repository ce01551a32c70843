import Foundation
import Testing
import TestSupport
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGatePAM
@testable import TouchGateStore
@testable import TouchGateSystem
@testable import TouchGateTerminal

/// The library API against real libpam: the test stacks from `pam/test`, read through
/// `pam_start_confdir`, with answers written into a pipe as a terminal would deliver them; the
/// prompts go to a file of the world's, not to the test runner's standard error.
@Suite struct AuthContextTests {
    final class World: @unchecked Sendable {
        /// A world made on a thread of its own (rendering the stacks waits for a process): an
        /// async test never holds a cooperative-pool thread for it.
        static func make() async throws -> World {
            try await onAThreadOfItsOwn { try World() }
        }

        let directory: String
        let store: Store
        let answers: (read: Int32, write: Int32)
        /// Where the prompts and messages go (`prompts.txt` in the world's directory).
        let promptOutput: Int32

        init() throws {
            directory = NSTemporaryDirectory() + "touchgate-context-\(UUID().uuidString)"
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            guard runToCompletion([root.appendingPathComponent("scripts/render-pam-stacks").path, directory + "/pam"]) == 0
            else { throw AuthError(.biometryNotAvailable) }
            store = try Store(path: FilePath(directory + "/state/touchgate.sqlite"))
            var ends: [Int32] = [0, 0]
            pipe(&ends)
            answers = (ends[0], ends[1])
            promptOutput = open(directory + "/prompts.txt", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        }

        deinit {
            close(answers.read)
            close(answers.write)
            close(promptOutput)
            try? FileManager.default.removeItem(atPath: directory)
        }

        func context(user: String = "alice") -> AuthContext {
            AuthContext(user: user, store: store, session: "test",
                        checker: PAMCredentialChecker(configurationDirectory: directory + "/pam"),
                        prompts: StandardInputPrompts(fileDescriptor: answers.read, output: promptOutput))
        }

        func type(_ lines: String...) {
            for line in lines { _ = (line + "\n").withCString { write(answers.write, $0, strlen($0)) } }
        }

        /// Waits until the prompts written so far contain `text` (an evaluation waits at it).
        func waitForPrompt(_ text: String, timeout: Duration = .seconds(30)) async throws {
            let clock = ContinuousClock()
            let deadline = clock.now + timeout
            while !((try? String(contentsOfFile: directory + "/prompts.txt", encoding: .utf8)) ?? "").contains(text) {
                guard clock.now < deadline else {
                    Issue.record("'\(text)' was never prompted")
                    throw CancellationError()
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        var biometricCalls: Int {
            ((try? String(contentsOfFile: directory + "/pam/calls-touchgate-biometric", encoding: .utf8)) ?? "")
                .split(separator: "\n").count
        }
    }

    @Test func aPasscodeSuccessUnlocksWhenNothingIsEnrolled() async throws {
        let world = try await World.make()
        world.type("alice-passcode")
        try await world.context().evaluate(.deviceOwner, reason: "test")
        #expect(try world.store.user("alice").lastSuccess != nil)
    }

    @Test func biometricsWithoutEnrollmentAreNotEnrolled() async throws {
        let world = try await World.make()
        await #expect(throws: AuthError(.biometryNotEnrolled)) {
            try await world.context().evaluate(.biometrics, reason: "test")
        }
        #expect(world.biometricCalls == 0)
    }

    @Test func enrollmentChangesTheDomainState() throws {
        let world = try World()
        let context = world.context()
        #expect(try context.domainState == nil)
        world.type("alice-passcode", "alice-finger")
        try context.enroll(reason: "test")
        let first = try #require(try context.domainState)
        world.type("alice-passcode", "alice-finger")
        try context.enroll(reason: "again")
        #expect(try context.domainState != first)
    }

    @Test func cancellingTheTaskEndsAPendingEvaluationWithAppCancel() async throws {
        let world = try await World.make()
        let context = world.context()
        // Nothing is typed: the evaluation waits at the passcode prompt until its task is cancelled.
        let pending = Task { try await context.evaluate(.deviceOwner, reason: "test") }
        try await world.waitForPrompt("Password:")
        pending.cancel()
        await #expect(throws: AuthError(.appCancel)) { try await pending.value }
        // Cancellation invalidated the context, as invalidate() does.
        #expect(throws: AuthError(.invalidContext)) { try context.canEvaluate(.deviceOwner) }
        #expect(try world.store.user("alice").passcodeFailures == 0)
    }

    @Test func aTaskCancelledBeforeItsEvaluationEndsWithAppCancel() async throws {
        let world = try await World.make()
        let context = world.context()
        world.type("alice-passcode")
        let pending = Task {
            // Cancelled before the evaluation starts: it never asks, and ends as a cancellation.
            withUnsafeCurrentTask { $0?.cancel() }
            try await context.evaluate(.deviceOwner, reason: "test")
        }
        await #expect(throws: AuthError(.appCancel)) { try await pending.value }
        #expect(try world.store.user("alice").lastSuccess == nil)
    }

    @Test func twoThreadsInOneContextsTurnTrap() async {
        await #expect(processExitsWith: .failure) {
            let turn = ExclusiveTurn("a test's context")
            turn.take {
                // Another thread's call while this one holds the turn: the helper traps.
                HelperThread { turn.take {} }.join()
            }
        }
    }

    @Test func theTurnIsReentrantOnItsThreadAndFreeAfter() {
        let turn = ExclusiveTurn("a test's context")
        #expect(!turn.isHeld)
        turn.take {
            #expect(turn.isHeldByCurrentThread)
            turn.take { #expect(turn.isHeldByCurrentThread) }
            #expect(turn.isHeldByCurrentThread)
        }
        #expect(!turn.isHeld)
    }

    @Test func invalidateEndsAPendingEvaluationThenLaterOnesAreInvalid() async throws {
        let world = try await World.make()
        let context = world.context()
        // Nothing is typed: the evaluation waits at the passcode prompt until invalidated.
        let pending = Task { try await context.evaluate(.deviceOwner, reason: "test") }
        // Invalidated only once it waits at the prompt (before that, it would never start).
        try await world.waitForPrompt("Password:")
        context.invalidate()
        await #expect(throws: AuthError(.appCancel)) { try await pending.value }
        await #expect(throws: AuthError(.invalidContext)) { try await context.evaluate(.deviceOwner, reason: "again") }
        #expect(throws: AuthError(.invalidContext)) { try context.canEvaluate(.deviceOwner) }
        // The cancelled try handed no secret to PAM, so it is not counted.
        #expect(try world.store.user("alice").passcodeFailures == 0)
    }

    @Test func interactionNotAllowedNeverPrompts() async throws {
        let world = try await World.make()
        let context = world.context()
        context.interactionNotAllowed = true
        world.type("alice-passcode")
        await #expect(throws: AuthError(.notInteractive)) { try await context.evaluate(.deviceOwner, reason: "test") }
    }

    @Test func reuseDurationIsCappedAndSkipsThePrompt() async throws {
        let world = try await World.make()
        let context = world.context()
        context.reuseDuration = 10_000
        #expect(context.reuseDuration == AuthContext.maximumReuseDuration)
        world.type("alice-passcode")
        try await context.evaluate(.deviceOwner, reason: "first")
        // No answer is typed now: only reuse can make this succeed.
        try await context.evaluate(.deviceOwner, reason: "reused")
        context.reuseDuration = 0
        context.interactionNotAllowed = true
        await #expect(throws: AuthError(.notInteractive)) { try await context.evaluate(.deviceOwner, reason: "no reuse") }
    }

    @Test func theStoredReuseSecondsApplyUnlessTheContextSetsItsOwn() async throws {
        let world = try await World.make()
        var configuration = try world.store.configuration(user: "alice")
        // The longest allowed: the window is wall-clock time, and on a busy two-core host the
        // test can wait for a thread of the pool for a minute between its two evaluations.
        configuration.reuseSeconds = 300
        try world.store.save(.reuseSeconds, from: configuration, user: "alice", session: nil, actor: nil)
        let context = world.context()
        #expect(context.reuseDuration == nil)
        world.type("alice-passcode")
        try await context.evaluate(.deviceOwner, reason: "first")
        // Nothing may be asked now: only the stored reuse-seconds can make this succeed.
        context.interactionNotAllowed = true
        try await context.evaluate(.deviceOwner, reason: "reused")
        context.reuseDuration = 0
        await #expect(throws: AuthError(.notInteractive)) { try await context.evaluate(.deviceOwner, reason: "own setting") }
    }

    /// Answers from the world's pipe, and remembers what was shown around the prompts.
    final class RecordingPrompts: PromptSource {
        let answers: StandardInputPrompts
        var shown: [String] = []
        init(_ world: World) { answers = StandardInputPrompts(fileDescriptor: world.answers.read, output: world.promptOutput) }
        func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer {
            answers.ask(prompt, echo: echo, interrupter: interrupter)
        }
        func show(_ message: String) { shown.append(message) }
        var steps: [PromptStep] = []
        func notify(_ event: PromptEvent) { if case .tryStarted(let step) = event { steps.append(step) } }
    }

    @Test func theTitlesAndTheReasonAreShown() throws {
        let world = try World()
        world.type("alice-passcode", "alice-finger")
        try world.context().enroll(reason: "test")
        let prompts = RecordingPrompts(world)
        let context = AuthContext(user: "alice", store: world.store, checker: PAMCredentialChecker(
            configurationDirectory: world.directory + "/pam"), prompts: prompts)
        context.fallbackTitle = "Type Password"
        context.cancelTitle = "Not Now"
        world.type("", "alice-passcode")
        try context.evaluateSynchronously(.deviceOwner, reason: "open the vault")
        // Told as values: which factor, which try of how many, what Enter and Ctrl-C do.
        #expect(prompts.steps == [
            PromptStep(factor: .biometric, attempt: 1, tries: 3, reason: "open the vault", user: "alice",
                       enterTitle: "Type Password", cancelTitle: "Not Now"),
            PromptStep(factor: .passcode, attempt: 1, tries: 3, reason: "open the vault", user: "alice",
                       enterTitle: nil, cancelTitle: "Not Now"),
        ])
        context.fallbackTitle = nil
        context.cancelTitle = nil
        world.type("alice-finger")
        try context.evaluateSynchronously(.deviceOwner, reason: "again")
        #expect(prompts.steps.last == PromptStep(factor: .biometric, attempt: 1, tries: 3, reason: "again", user: "alice",
                                                 enterTitle: nil, cancelTitle: nil))
    }

    /// The prompts reach the descriptor the prompt source was given, and only that: the test
    /// runner's output shows no stray `Password:`.
    @Test func promptsGoWhereTheyAreSent() throws {
        let world = try World()
        world.type("alice-passcode")
        try world.context().evaluateSynchronously(.deviceOwner, reason: "captured")
        let text = try String(contentsOfFile: world.directory + "/prompts.txt", encoding: .utf8)
        #expect(text.contains("Password: \n"), "\(text)")
    }

    @Test func canEvaluateNeverCounts() throws {
        let world = try World()
        world.type("alice-passcode", "alice-finger")
        let context = world.context()
        try context.enroll(reason: "test")
        try context.canEvaluate(.biometrics)
        try context.canEvaluate(.deviceOwner)
        #expect(world.biometricCalls == 1)
        #expect(try world.store.user("alice").biometricFailures == 0)
    }
}
