internal import CPAM
import Testing
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGatePAM

/// The rules of a biometric wait, driven with events alone: no worker, no socket, no terminal.
@Suite struct BiometricWaitStateMachineTests {
    typealias Machine = BiometricWaitStateMachine

    static let swipe = "Swipe your right index finger across the fingerprint reader"
    static let conversationError = PAMOutcome.failed(PAM_CONV_ERR)

    /// The two outcomes the machine writes as numbers (it imports no C module) are libpam's
    /// statuses, read back as the transaction reads them.
    @Test func theUndecidedOutcomesAreLibpamsStatuses() {
        #expect(PAMOutcome.conversationFailed == PAMOutcome(status: PAM_CONV_ERR))
        #expect(PAMOutcome.aborted == PAMOutcome(status: PAM_ABORT))
        #expect(PAMOutcome.aborted.status == PAM_ABORT)
    }

    /// A machine whose worker runs and whose stack now waits for the sensor.
    static func waiting(deviceOwner: Bool = true) -> Machine {
        var machine = Machine(inputWatchable: true, typedLineIsPasscode: deviceOwner)
        _ = machine.started()
        _ = machine.workerMessage(style: .information, text: swipe)
        return machine
    }

    @Test func theStartFrameIsSentAndInputIsNotWatchedBeforeTheStackSaysSomething() {
        var machine = Machine(inputWatchable: true, typedLineIsPasscode: true)
        #expect(!machine.watchesInput)
        #expect(machine.started() == .sendStart)
        #expect(!machine.watchesInput, "a line may still answer the stack's first question")
    }

    @Test(arguments: [true, false])
    func aSensorMessageStartsWatchingInput(deviceOwner: Bool) {
        var machine = Machine(inputWatchable: true, typedLineIsPasscode: deviceOwner)
        _ = machine.started()
        #expect(machine.workerMessage(style: .information, text: Self.swipe)
            == .showAndStartWatchingInput(Self.swipe, typedLineIsPasscode: deviceOwner))
        #expect(machine.watchesInput)
        #expect(machine.keepsTypedLine == deviceOwner)
        // A second line during the same wait is only shown: the wait has started already.
        #expect(machine.workerMessage(style: .information, text: "again") == .show("again"))
        #expect(machine.watchesInput)
    }

    @Test func withoutAWatchableInputLinesAreOnlyShown() {
        var machine = Machine(inputWatchable: false, typedLineIsPasscode: true)
        _ = machine.started()
        #expect(machine.workerMessage(style: .information, text: Self.swipe) == .show(Self.swipe))
        #expect(!machine.watchesInput)
    }

    @Test func aQuestionIsRelayedAndInputIsNotWatchedBeforeTheNextLine() {
        var machine = Machine(inputWatchable: true, typedLineIsPasscode: true)
        _ = machine.started()
        #expect(machine.workerMessage(style: .question(echo: false), text: "Token:") == .relayQuestion("Token:", echo: false))
        #expect(!machine.watchesInput)
        #expect(machine.answered() == .sendAnswer)
        #expect(!machine.watchesInput, "after a question a line is not yet a line typed during a wait")
        #expect(machine.workerMessage(style: .question(echo: true), text: "Name:") == .relayQuestion("Name:", echo: true))
        #expect(machine.answered() == .sendAnswer)
        #expect(machine.workerMessage(style: .information, text: Self.swipe)
            == .showAndStartWatchingInput(Self.swipe, typedLineIsPasscode: true))
        #expect(machine.watchesInput)
    }

    @Test func aQuestionAfterTheWaitStoppedWatchingAndTheNextLineStartsItAgain() {
        var machine = Self.waiting()
        #expect(machine.workerMessage(style: .question(echo: false), text: "PIN:") == .relayQuestion("PIN:", echo: false))
        #expect(!machine.watchesInput)
        _ = machine.answered()
        #expect(machine.workerMessage(style: .information, text: Self.swipe)
            == .showAndStartWatchingInput(Self.swipe, typedLineIsPasscode: true))
    }

    @Test func anUnansweredQuestionStopsTheStack() {
        var machine = Machine(inputWatchable: true, typedLineIsPasscode: true)
        _ = machine.started()
        _ = machine.workerMessage(style: .question(echo: false), text: "Token:")
        #expect(machine.notAnswered() == .killWorkerAndFinish(Self.conversationError, fallbackChosen: false))
    }

    @Test func anUnsupportedMessageIsRefused() {
        var machine = Self.waiting()
        #expect(machine.workerMessage(style: .unsupported, text: "")
            == .killWorkerAndFinish(Self.conversationError, fallbackChosen: false))
        #expect(Machine.MessageStyle(pamStyle: PAM_BINARY_PROMPT) == .unsupported)
        #expect(Machine.MessageStyle(pamStyle: PAM_ERROR_MSG) == .information)
        #expect(Machine.MessageStyle(pamStyle: PAM_TEXT_INFO) == .information)
        #expect(Machine.MessageStyle(pamStyle: PAM_PROMPT_ECHO_ON) == .question(echo: true))
    }

    @Test(arguments: [true, false])
    func enterAloneIsTheFallbackAndKillsTheWorker(deviceOwner: Bool) {
        var machine = Self.waiting(deviceOwner: deviceOwner)
        #expect(machine.lineTyped(.nothing) == .keepWaiting)
        #expect(machine.lineTyped(.empty) == .killWorkerAndFinish(Self.conversationError, fallbackChosen: true))
    }

    /// Under device-owner the source keeps the line (it is the first passcode try) and the wait
    /// ends as the fallback: the passcode prompt reads the kept line.
    @Test func textUnderDeviceOwnerIsTheFallbackWithTheLineKept() {
        var machine = Self.waiting(deviceOwner: true)
        #expect(machine.keepsTypedLine)
        #expect(machine.lineTyped(.text) == .killWorkerAndFinish(Self.conversationError, fallbackChosen: true))
    }

    /// Under `--policy biometrics` the source is told to drop a non-empty line (it never answers
    /// `.text` then): the wait goes on, and only Enter alone leaves it.
    @Test func textUnderBiometricsIsDroppedByTheSourceAndTheWaitGoesOn() {
        var machine = Self.waiting(deviceOwner: false)
        #expect(!machine.keepsTypedLine)
        #expect(machine.lineTyped(.nothing) == .keepWaiting)
        #expect(machine.watchesInput)
        #expect(machine.lineTyped(.empty) == .killWorkerAndFinish(Self.conversationError, fallbackChosen: true))
        // A source that kept a line anyway: the wait ends as with Enter (biometrics then ends in userFallback).
        var kept = Self.waiting(deviceOwner: false)
        #expect(kept.lineTyped(.text) == .killWorkerAndFinish(Self.conversationError, fallbackChosen: true))
    }

    @Test func endOfInputStopsWatchingButKeepsWaiting() {
        var machine = Self.waiting()
        #expect(machine.lineTyped(.endOfInput) == .keepWaiting)
        #expect(!machine.watchesInput)
        // A later line of the stack is shown, but the input is not watched again.
        #expect(machine.workerMessage(style: .information, text: "again") == .show("again"))
        _ = machine.workerMessage(style: .question(echo: false), text: "PIN:")
        _ = machine.answered()
        #expect(machine.workerMessage(style: .information, text: Self.swipe) == .show(Self.swipe))
        #expect(!machine.watchesInput)
        #expect(machine.workerResult(.success) == .killWorkerAndFinish(.success, fallbackChosen: false))
    }

    @Test func aLineIsReadOnlyWhileTheInputIsWatched() {
        var machine = Machine(inputWatchable: true, typedLineIsPasscode: true)
        _ = machine.started()
        #expect(machine.lineTyped(.empty) == .keepWaiting, "before the wait a line is for the stack's question")
        #expect(machine.workerResult(.noMatch) == .killWorkerAndFinish(.noMatch, fallbackChosen: false))
    }

    @Test(arguments: [PAMOutcome.success, .noMatch, .unavailable, .notStarted])
    func theWorkersResultEndsTheWait(outcome: PAMOutcome) {
        var machine = Self.waiting()
        #expect(machine.workerResult(outcome) == .killWorkerAndFinish(outcome, fallbackChosen: false))
        #expect(!machine.watchesInput)
    }

    @Test func aCountedFailureAndANotStartedStackAreReadAsSuch() {
        var machine = Self.waiting()
        guard case .killWorkerAndFinish(let outcome, _) = machine.workerResult(PAMOutcome(status: PAM_MAXTRIES)) else {
            Issue.record("no finish"); return
        }
        #expect(outcome.isCountedFailure)
        var notStarted = Machine(inputWatchable: true, typedLineIsPasscode: true)
        #expect(notStarted.notSpawned() == .killWorkerAndFinish(.notStarted, fallbackChosen: false))
    }

    /// Closed socket, malformed frame, failed send or poll: a counted failure, never a success.
    @Test func aWorkerGoneWithoutAResultFailsClosed() {
        var starting = Machine(inputWatchable: true, typedLineIsPasscode: true)
        _ = starting.started()
        var relaying = Self.waiting()
        _ = relaying.workerMessage(style: .question(echo: false), text: "PIN:")
        _ = relaying.answered()
        for var machine in [starting, Self.waiting(), relaying] {
            switch machine.workerGone() {
            case .killWorkerAndFinish(let outcome, let fallback):
                #expect(outcome != .success && outcome.isCountedFailure && !fallback)
            }
        }
    }

    @Test(arguments: [Interruption.user, .system, .application])
    func anInterruptionAtAnyPointKillsTheWorkerAndFinishes(interruption: Interruption) {
        let abort = Machine.FinishAction.killWorkerAndFinish(.failed(PAM_ABORT), fallbackChosen: false)
        var initial = Machine(inputWatchable: true, typedLineIsPasscode: true)
        #expect(initial.interrupted(interruption) == abort)
        var started = Machine(inputWatchable: true, typedLineIsPasscode: true)
        _ = started.started()
        #expect(started.interrupted(interruption) == abort)
        var waiting = Self.waiting()
        #expect(waiting.interrupted(interruption) == abort)
        var ended = Self.waiting()
        _ = ended.lineTyped(.endOfInput)
        #expect(ended.interrupted(interruption) == abort)
        var relaying = Self.waiting()
        _ = relaying.workerMessage(style: .question(echo: false), text: "PIN:")
        #expect(relaying.interrupted(interruption) == abort)
        #expect(!relaying.watchesInput)
    }
}
