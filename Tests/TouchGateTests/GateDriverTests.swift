import Glibc
import Synchronization
import Testing
@testable import TouchGate

/// The gate's driver (``Gate``, ``OfflineGate``) with a real store, a scripted checker and a
/// screen that records what it was asked to draw; the gate through the real binary, a real
/// terminal and real PAM is in the CLI suites (GateTests, TmuxGateTests, TerminalKeysTests).
@Suite struct GateDriverTests {
    typealias ScriptedChecker = EvaluationTests.ScriptedChecker

    final class RecordingScreen: GateScreen {
        var notices: [String?] = []
        var waitedFor: [Int32] = []
        var countdowns: [Int] = []
        var said: [String] = []
        var pauses = 0
        /// Called at each pause (a second of a countdown, a look at another owner).
        var onPause: (Int) -> Interruption? = { _ in nil }
        var enterWaits: [GateEnterWait] = []

        func showStatus(_ status: GateStatus, notice: String?) { notices.append(notice) }
        func showWaitingForOwner(_ owner: Int32) { waitedFor.append(owner) }
        func showCountdown(_ seconds: Int) { countdowns.append(seconds) }
        func redrawCountdown(_ seconds: Int) { countdowns.append(seconds) }
        func pause(milliseconds: Int32) -> Interruption? {
            pauses += 1
            return onPause(pauses)
        }
        func waitForEnter() -> GateEnterWait { enterWaits.isEmpty ? .endOfInput : enterWaits.removeFirst() }
        var terminalGone: Bool { false }
        func say(_ line: String) { said.append(line) }
    }

    final class Silent: PromptSource {
        func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer { .endOfInput }
        func show(_ message: String) {}
    }

    struct World {
        let store: Store
        let clock = TestClock()

        init() throws {
            store = try Store(path: temporaryStorePath(), clock: clock)
            try store.updateSession("s1", user: "alice") { $0.lifecycle = SessionLifecycle(state: .active, locked: true) }
        }

        func gate(_ checker: ScriptedChecker, scripted: Bool = false) -> Gate {
            let context = AuthContext(user: "alice", store: store, session: "s1", checker: checker, prompts: Silent())
            return Gate(store: store, session: "s1", context: context, scripted: scripted)
        }

        var locked: Bool { (try? store.session("s1"))??.lifecycle.locked ?? true }
    }

    static func result(_ outcome: PAMOutcome, submitted: Bool = true) -> ScriptedChecker.Step {
        .result(CredentialCheckResult(outcome: outcome, submittedAnswer: submitted))
    }

    @Test func aWrongPasscodeAsksAgainThenTheRightOneUnlocks() throws {
        let world = try World()
        let screen = RecordingScreen()
        // One evaluation takes three passcode answers; then the gate asks again, saying why.
        let checker = ScriptedChecker(Array(repeating: Self.result(.noMatch), count: 3) + [Self.result(.success)])
        #expect(try world.gate(checker).run(on: screen) == .unlocked)
        #expect(screen.notices == [nil, "Authentication failed: the passcode was wrong 3 times."])
        #expect(!world.locked)
        // The claim is given back.
        #expect(try world.store.session("s1")?.promptOwner == nil)
    }

    /// While another live process holds the prompt the gate only waits; when that one unlocks
    /// the session, the gate ends unlocked without asking anything.
    @Test func aGateWaitsForTheClaimOfAnotherProcess() throws {
        let world = try World()
        let other = getppid()
        #expect(try world.store.claimPrompt(session: "s1", user: "alice", pid: other, kind: "gate") == nil)
        let screen = RecordingScreen()
        let store = world.store
        screen.onPause = { count in
            if count == 3 { try? store.updateSession("s1", user: "alice") { $0.lifecycle.unlock() } }
            return nil
        }
        let checker = ScriptedChecker([])
        #expect(try world.gate(checker).run(on: screen) == .unlocked)
        #expect(screen.waitedFor == [other, other, other])
        #expect(checker.calls.withLock { $0.isEmpty })
    }

    @Test func aScriptedGateEndsOnACancelAndSaysIt() throws {
        let world = try World()
        let screen = RecordingScreen()
        var ended = CredentialCheckResult(outcome: .failed(19), submittedAnswer: false)
        ended.endOfInput = true
        let end = try world.gate(ScriptedChecker([.result(ended)]), scripted: true).run(on: screen)
        #expect(end == .stopped(AuthError(.userCancel, detail: "The input ended before an answer (end of input).")))
        #expect(screen.said == ["touchgate: The input ended before an answer (end of input). (userCancel)"])
        #expect(world.locked)
    }

    /// A throttled passcode at a terminal: a countdown, then the gate asks again.
    @Test func aThrottledPasscodeCountsDown() throws {
        let world = try World()
        var configuration = try world.store.configuration(user: "alice")
        configuration.passcodeDelays = [0, 3]
        try world.store.save(.passcodeDelays, from: configuration, user: "alice", session: nil, actor: nil)
        let screen = RecordingScreen()
        let clock = world.clock
        screen.onPause = { _ in clock.advance(by: 1); return nil }
        let checker = ScriptedChecker([Self.result(.noMatch), Self.result(.success)])
        #expect(try world.gate(checker).run(on: screen) == .unlocked)
        #expect(screen.countdowns == [3, 2, 1])
        #expect(checker.calls.withLock { $0.count } == 2)
    }

    @Test func aSigtermDuringTheCountdownEndsTheGateLocked() throws {
        let world = try World()
        var configuration = try world.store.configuration(user: "alice")
        configuration.passcodeDelays = [0, 60]
        try world.store.save(.passcodeDelays, from: configuration, user: "alice", session: nil, actor: nil)
        let screen = RecordingScreen()
        screen.onPause = { count in count == 2 ? .system : nil }
        let end = try world.gate(ScriptedChecker([Self.result(.noMatch)])).run(on: screen)
        #expect(end == .stopped(AuthError(.systemCancel)))
        #expect(world.locked)
    }

    /// No passcode stack: the gate says why and waits for Enter; with -S it ends (passcodeNotSet).
    @Test func aMissingPasscodeStackWaitsForEnter() throws {
        final class NoStack: CredentialChecker {
            func serviceExists(_ service: String) -> Bool { false }
            func check(service: String, user: String, prompts: PromptSource, interrupter: Interrupter,
                       emptyAnswerIsFallback: Bool) -> CredentialCheckResult {
                CredentialCheckResult(outcome: .notStarted, submittedAnswer: false)
            }
        }
        let world = try World()
        let screen = RecordingScreen()
        screen.enterWaits = [.enter, .interrupted(.system)]
        let context = AuthContext(user: "alice", store: world.store, session: "s1", checker: NoStack(), prompts: Silent())
        let end = try Gate(store: world.store, session: "s1", context: context, scripted: false).run(on: screen)
        #expect(end == .stopped(AuthError(.systemCancel)))
        #expect(screen.notices.count == 4)

        let scripted = try Gate(store: world.store, session: "s1", context: context, scripted: true).run(on: RecordingScreen())
        guard case .stopped(let error) = scripted else { Issue.record("a -S gate must end"); return }
        #expect(error.code == .passcodeNotSet)
    }

    @Test func theOfflineGateOpensOnlyForThePasscode() throws {
        let screen = RecordingScreen()
        let checker = ScriptedChecker([Self.result(.noMatch), Self.result(.success, submitted: false), Self.result(.success)])
        let gate = OfflineGate(user: "alice", session: "s1", checker: checker, prompts: Silent(), interrupter: Interrupter(),
                               scripted: false, storeError: StoreError(path: "/nowhere", reason: .unavailable, detail: "gone"))
        #expect(gate.run(on: screen) == .unlocked)
        #expect(checker.calls.withLock { $0.count } == 3)
        #expect(screen.notices.allSatisfy { $0?.contains("only the passcode can unlock") == true })
    }
}
