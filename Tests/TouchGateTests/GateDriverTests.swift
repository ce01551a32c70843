import Glibc
import Synchronization
import Testing
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGatePAM
@testable import TouchGateStore
@testable import TouchGateSystem
@testable import TouchGateTerminal

/// The gate's driver (``Gate``, over the store or the offline ledger) and its use case
/// (``GateUseCase``) with a real store, a scripted checker and a
/// screen that records what it was asked to draw; the gate through the real binary, a real
/// terminal and real PAM is in the CLI suites (GateTests, TmuxGateTests, TerminalKeysTests).
@Suite(.removesItsFiles) struct GateDriverTests {
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

    /// Types a line at every prompt: touchgate's own passcode prompt, before the scripted check.
    final class Silent: PromptSource {
        func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer { .answer(SecureBytes("typed".utf8)) }
        func show(_ message: String) {}
    }

    struct World {
        let store: Store
        let clock = TestClock()

        init() throws {
            store = try Store(path: FilePath(temporaryStorePath()), clock: clock)
            try store.updateSession("s1", user: "alice") { $0.lifecycle = SessionLifecycle(state: .active, locked: true) }
        }

        func gate(_ checker: ScriptedChecker, scripted: Bool = false) -> Gate {
            let context = AuthContext(user: "alice", store: store, session: "s1", checker: checker, prompts: Silent())
            return Gate(store: store, session: "s1", context: context, scripted: scripted)
        }

        var locked: Bool { (try? store.session("s1"))??.lifecycle.locked ?? true }

        /// The success of a real evaluation of alice's passcode (another process's, say).
        func success() throws -> EvaluationSuccess {
            let context = AuthContext(user: "alice", store: store, session: "s1",
                                      checker: ScriptedChecker([GateDriverTests.result(.success)]), prompts: Silent())
            return try context.evaluateSynchronously(.deviceOwner, reason: "unlock")
        }
    }

    /// The executable's side of a gate: a recording screen, silent prompts (or none).
    struct Surroundings: GateSurroundings {
        let screen: RecordingScreen
        var prompts: (any PromptSource)? = Silent()
        func makePromptSource() -> (any PromptSource)? { prompts }
        func sessionLabel(_ session: String, socket: String?) -> String { session }
        func lockClients(of session: String, store: Store, socket: String?) {}
        func cover(header: [String], prompts: any PromptSource, scripted: Bool, interrupter: Interrupter,
                   readStatus: @escaping () -> GateStatus?) -> any GateScreen { screen }
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
        #expect(try world.store.session("s1")?.lifecycle.state == .active)
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
        // Another process's evaluation succeeds, and it unlocks the session.
        let success = try world.success()
        screen.onPause = { count in
            if count == 3 { try? store.unlockSession("s1", user: "alice", after: success) }
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

    /// The countdown follows the store: a reset elsewhere (another terminal's success, `touchgate
    /// reset`) ends it at the next second, with no wait left and no Enter needed.
    @Test func aCountdownEndsWhenTheCountIsResetElsewhere() throws {
        let world = try World()
        var configuration = try world.store.configuration(user: "alice")
        configuration.passcodeDelays = [0, 300]
        try world.store.save(.passcodeDelays, from: configuration, user: "alice", session: nil, actor: nil)
        let screen = RecordingScreen()
        let store = world.store
        // The clock stands still: only the reset can end a wait of 300 s.
        screen.onPause = { count in
            if count == 3 { try? store.resetCounters(user: "alice", session: nil) }
            return nil
        }
        // One wrong try, and the next waits 300 s.
        let checker = ScriptedChecker([Self.result(.noMatch), Self.result(.success)])
        #expect(try world.gate(checker).run(on: screen) == .unlocked)
        #expect(screen.countdowns == [300, 300, 300])
        #expect(screen.pauses == 3)
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

    /// The store cannot be read: the same gate on the in-memory ledger, passcode only, saying why.
    @Test func theOfflineGateOpensOnlyForThePasscode() throws {
        let screen = RecordingScreen()
        let checker = ScriptedChecker([Self.result(.noMatch), Self.result(.success, submitted: false), Self.result(.success)])
        let gate = GateUseCase(openStore: { throw StoreError(path: "/nowhere", reason: .unavailable, detail: "gone") },
                               clock: TestClock(), checker: checker, biometricChecker: checker)
        #expect(try gate.run(GateRequest(session: "s1", user: "alice"), in: Surroundings(screen: screen)) == .ended(.unlocked))
        #expect(checker.calls.withLock { $0.count } == 3)
        #expect(checker.calls.withLock { $0 }.allSatisfy { $0 == Configuration().passcodeService })
        #expect(!screen.notices.isEmpty)
        #expect(screen.notices.allSatisfy { $0?.contains("only the passcode can unlock") == true })
    }

    /// A store's internal error (a bug, not the file) does not take the gate offline: nothing is
    /// asked, the session stays locked, and the error reaches the caller (exit 70).
    @Test func aStoresInternalErrorDoesNotTakeTheGateOffline() {
        let screen = RecordingScreen()
        let checker = ScriptedChecker([Self.result(.success)])
        let gate = GateUseCase(openStore: { throw StoreError(path: "/here", reason: .internalError, detail: "a bug") },
                               clock: TestClock(), checker: checker, biometricChecker: checker)
        let error = #expect(throws: StoreError.self) {
            try gate.run(GateRequest(session: "s1", user: "alice"), in: Surroundings(screen: screen))
        }
        #expect(error?.reason == .internalError)
        #expect(error.map(ExitCode.init) == .internalError)
        #expect(checker.calls.withLock { $0.isEmpty })
        #expect(screen.notices.isEmpty)
    }

    /// Without a terminal the offline gate asks nothing and says why.
    @Test func theOfflineGateWithoutATerminalSaysWhy() throws {
        let checker = ScriptedChecker([])
        let gate = GateUseCase(openStore: { throw StoreError(path: "/nowhere", reason: .unavailable, detail: "gone") },
                               clock: TestClock(), checker: checker)
        let outcome = try gate.run(GateRequest(session: "s1", user: "alice"),
                                   in: Surroundings(screen: RecordingScreen(), prompts: nil))
        guard case .notInteractive(let problem?) = outcome else { Issue.record("\(outcome)"); return }
        #expect(problem.contains("/nowhere"))
        #expect(checker.calls.withLock { $0.isEmpty })
    }

    /// The offline ledger claims from no one and unlocks nothing in the store: a gate over it
    /// that succeeds leaves the store's session locked; it refuses the biometric factor and
    /// keeps a wrong passcode counted, throttled by the default schedule.
    @Test func theOfflineLedgerUnlocksNothingAndCountsThePasscode() throws {
        let world = try World()
        let clock = TestClock()
        let ledger = OfflineLedger(user: "alice", storeError: StoreError(path: "/nowhere", reason: .unavailable, detail: "gone"),
                                   clock: clock)
        let checker = ScriptedChecker([Self.result(.success)])
        let context = AuthContext(user: "alice", ledger: ledger, session: "s1", checker: checker, biometricChecker: nil,
                                  prompts: Silent(), interrupter: Interrupter())
        let gate = Gate(ledger: ledger, session: "s1", context: context, scripted: false, kind: .gate, processes: SystemProcessProbe())
        #expect(try gate.run(on: RecordingScreen()) == .unlocked)
        #expect(world.locked, "the store's session stays locked")
        #expect(try world.store.session("s1")?.promptOwner == nil)

        let configuration = Configuration()
        #expect(try ledger.admitAttempt(.biometric, user: "alice", session: "s1", purpose: nil, configuration: configuration)
            == .lockedOut)
        var failures = 0
        var admission = try ledger.admitAttempt(.passcode, user: "alice", session: "s1", purpose: nil, configuration: configuration)
        while case .admitted(let attempt) = admission, failures < 100 {
            try ledger.finishAttempt(attempt, user: "alice", factor: .passcode, result: .failure(.authenticationFailed))
            failures += 1
            admission = try ledger.admitAttempt(.passcode, user: "alice", session: "s1", purpose: nil, configuration: configuration)
        }
        guard case .throttled(let wait) = admission else { Issue.record("never throttled: \(admission)"); return }
        #expect(wait > 0)
        #expect(try ledger.user("alice").passcodeFailures == failures)
        clock.advance(by: Double(wait))
        guard case .admitted(let attempt) = try ledger.admitAttempt(
            .passcode, user: "alice", session: "s1", purpose: nil, configuration: configuration) else {
            Issue.record("still throttled after the wait"); return
        }
        // A try that never reached the stack is taken back; a success clears the count.
        try ledger.finishAttempt(attempt, user: "alice", factor: .passcode, result: .notChecked(.userCancel))
        #expect(try ledger.user("alice").passcodeFailures == failures)
        try ledger.finishAttempt(attempt, user: "alice", factor: .passcode, result: .success)
        #expect(try ledger.user("alice").passcodeFailures == 0)
    }

    /// A success unlocks only its own user's session.
    @Test func anotherUsersSuccessUnlocksNothing() throws {
        let world = try World()
        try world.store.updateSession("s2", user: "bob") { $0.lifecycle.lock(policy: .init(enabled: true, graceSeconds: 0)) }
        try world.store.unlockSession("s2", user: "bob", after: try world.success())
        #expect(try world.store.session("s2")?.lifecycle.locked == true)
    }

    /// The use case's fast path: the lock off, or an active unlocked session, opens at once and
    /// asks nothing; a locked session without a terminal is notInteractive.
    @Test func theFastPathOpensAtOnce() throws {
        let world = try World()
        let checker = ScriptedChecker([])
        let store = world.store
        let gate = GateUseCase(openStore: { store }, clock: world.clock, checker: checker)
        let request = GateRequest(session: "s1", user: "alice")
        #expect(try gate.run(request, in: Surroundings(screen: RecordingScreen())) == .open, "the lock is off")
        try store.setEnabled(true, user: "alice", session: nil)
        #expect(try gate.run(request, in: Surroundings(screen: RecordingScreen(), prompts: nil)) == .notInteractive(storeProblem: nil))
        try store.unlockSession("s1", user: "alice", after: try world.success())
        #expect(try gate.run(request, in: Surroundings(screen: RecordingScreen())) == .open)
        #expect(checker.calls.withLock { $0.isEmpty })
        var lockRequest = request
        lockRequest.lockRequest = true
        #expect(try gate.run(lockRequest, in: Surroundings(screen: RecordingScreen(), prompts: nil)) == .notInteractive(storeProblem: nil))
        #expect(world.locked)
    }
}
