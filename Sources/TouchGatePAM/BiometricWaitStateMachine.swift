import TouchGateCore

/// The rules of one try of the biometric stack in its worker, free of I/O: what a message from
/// the worker, its result, a line typed at the terminal and an interruption do to the wait.
///
/// Shaped like ``EvaluationStateMachine``: a private ``State`` carries each step's data; every
/// input is a `mutating` method returning its own action type, holding only what can follow
/// that input. No C module here: the driver reads PAM's message styles
/// (``PAMMessageStyle``) and the machine's outcomes are ``PAMOutcome``s. The driver
/// (``WorkerCredentialChecker``) spawns and kills the worker, polls its socket, the interrupter
/// and the input, asks the questions through the ``Conversation`` and sends the answers; which
/// event ends the wait, how, and when typed input is read is decided here once, and unit-tested
/// with events alone. No secret passes through the machine: the driver holds an answer's bytes.
struct BiometricWaitStateMachine: Sendable {
    /// What a message relayed from the worker is (read once, in ``PAMMessageStyle``).
    typealias MessageStyle = PAMMessageStyle

    /// What ``started()`` asks: send the worker its start frame (then poll); a failed send is
    /// ``workerGone()``.
    enum StartedAction: Sendable, Equatable {
        case sendStart
    }

    /// What ``workerMessage(style:text:)`` asks.
    enum MessageAction: Sendable, Equatable {
        /// Show an information or error line of the stack, then poll again.
        case show(String)
        /// Show the line, then start watching the input: the stack now waits for the sensor
        /// without asking (the cover says what can be typed; the terminal is taken, type-ahead
        /// forgotten). Then poll again.
        case showAndStartWatchingInput(String, typedLineIsPasscode: Bool)
        /// Ask the user the stack's question (through the conversation); answer with
        /// ``answered()`` or ``notAnswered()``.
        case relayQuestion(String, echo: Bool)
        /// See ``FinishAction/killWorkerAndFinish(_:fallbackChosen:)`` (a style that is refused).
        case killWorkerAndFinish(PAMOutcome, fallbackChosen: Bool)
    }

    /// What ``answered()`` asks: send the answer the driver holds to the worker, wipe it, then
    /// poll again; a failed send is ``workerGone()``.
    enum AnsweredAction: Sendable, Equatable {
        case sendAnswer
    }

    /// What ``lineTyped(_:)`` asks.
    enum LineTypedAction: Sendable, Equatable {
        /// Poll again: the worker's socket, the interrupter and, when ``watchesInput``, the input.
        case keepWaiting
        /// See ``FinishAction/killWorkerAndFinish(_:fallbackChosen:)`` (the fallback).
        case killWorkerAndFinish(PAMOutcome, fallbackChosen: Bool)
    }

    /// What an input that ends the wait asks (``notSpawned()``, ``notAnswered()``,
    /// ``workerResult(_:)``, ``workerGone()``, ``interrupted(_:)``).
    enum FinishAction: Sendable, Equatable {
        /// Kill the worker's process group (when one runs), reap it, and end the check with
        /// `outcome`; with `fallbackChosen` the fallback was chosen during the wait (a line typed
        /// under device-owner stays buffered for the passcode prompt).
        case killWorkerAndFinish(PAMOutcome, fallbackChosen: Bool)
    }

    private enum State {
        /// Before the worker runs.
        case initial
        /// The worker runs. `sensorWait`: its last message was a line, not a question (the stack
        /// waits for the sensor); `inputEnded`: the input reached its end, only the sensor is left.
        case running(sensorWait: Bool, inputEnded: Bool)
        /// A question is with the user.
        case relaying(inputEnded: Bool)
        case finished
    }

    /// Whether a line typed during the wait can be read at all (the prompt source can watch its
    /// input, and an empty answer is the fallback).
    let inputWatchable: Bool
    /// Under device-owner a non-empty line typed during the wait is the passcode, kept for its
    /// prompt; otherwise the prompt source drops it and the wait goes on.
    let typedLineIsPasscode: Bool
    private var state = State.initial

    init(inputWatchable: Bool, typedLineIsPasscode: Bool) {
        self.inputWatchable = inputWatchable
        self.typedLineIsPasscode = typedLineIsPasscode
    }

    /// Whether the driver polls the input now: only while the stack waits for the sensor (before
    /// its first line, or after a question, a line may be the answer to the question) and until
    /// the input ends.
    var watchesInput: Bool {
        switch state {
        case .running(sensorWait: true, inputEnded: false): inputWatchable
        case .initial, .running, .relaying, .finished: false
        }
    }

    /// Whether the prompt source keeps a non-empty line it reads during the wait (for the passcode
    /// prompt) or drops it.
    var keepsTypedLine: Bool { typedLineIsPasscode }

    // MARK: - Inputs

    /// The worker was spawned.
    mutating func started() -> StartedAction {
        switch state {
        case .initial:
            state = .running(sensorWait: false, inputEnded: false)
            return .sendStart
        case .running, .relaying, .finished:
            preconditionFailure("started twice")
        }
    }

    /// The worker could not be spawned: the stack never ran.
    mutating func notSpawned() -> FinishAction {
        switch state {
        case .initial: finish(.notStarted)
        case .running, .relaying, .finished: preconditionFailure("spawned already")
        }
    }

    /// The worker relayed a message of the stack (its text already sanitized).
    mutating func workerMessage(style: MessageStyle, text: String) -> MessageAction {
        let sensorWait: Bool, inputEnded: Bool
        switch state {
        case .running(let waiting, let ended): (sensorWait, inputEnded) = (waiting, ended)
        case .initial, .relaying, .finished: preconditionFailure("no worker running")
        }
        switch style {
        case .question(let echo):
            state = .relaying(inputEnded: inputEnded)
            return .relayQuestion(text, echo: echo)
        case .information:
            state = .running(sensorWait: true, inputEnded: inputEnded)
            // The first line after a question (or the first at all) starts the wait for the sensor.
            if !sensorWait, !inputEnded, inputWatchable {
                return .showAndStartWatchingInput(text, typedLineIsPasscode: typedLineIsPasscode)
            }
            return .show(text)
        case .unsupported:
            // Refused rather than guessed, as in-process.
            switch finish(.conversationFailed) {
            case .killWorkerAndFinish(let outcome, let fallback): return .killWorkerAndFinish(outcome, fallbackChosen: fallback)
            }
        }
    }

    /// The user answered the relayed question.
    mutating func answered() -> AnsweredAction {
        switch state {
        case .relaying(let inputEnded):
            state = .running(sensorWait: false, inputEnded: inputEnded)
            return .sendAnswer
        case .initial, .running, .finished:
            preconditionFailure("no question relayed")
        }
    }

    /// The relayed question got no answer (the fallback, a cancel, end of input, an invalid line,
    /// no one to ask: the conversation recorded which); the stack is stopped.
    mutating func notAnswered() -> FinishAction {
        switch state {
        case .relaying: finish(.conversationFailed)
        case .initial, .running, .finished: preconditionFailure("no question relayed")
        }
    }

    /// A line typed during the wait, as the prompt source read it (``keepsTypedLine`` said whether
    /// it keeps a non-empty one).
    mutating func lineTyped(_ line: WaitingLine) -> LineTypedAction {
        let sensorWait: Bool
        switch state {
        case .running(let waiting, _) where watchesInput:
            sensorWait = waiting
        case .initial, .running, .relaying, .finished:
            // Input is read only while it is watched; anything else waits for a prompt.
            return .keepWaiting
        }
        switch line {
        case .nothing:
            return .keepWaiting
        case .empty, .text:
            // The fallback button, or (device-owner) the passcode, left buffered for its prompt.
            // Under biometrics the source drops a non-empty line (``keepsTypedLine``) and never
            // answers `.text`; should one come, it ends the wait as Enter does, never as a passcode.
            switch finish(.conversationFailed, fallbackChosen: true) {
            case .killWorkerAndFinish(let outcome, let fallback): return .killWorkerAndFinish(outcome, fallbackChosen: fallback)
            }
        case .endOfInput:
            // Only the reading stops: the wait for the finger goes on.
            state = .running(sensorWait: sensorWait, inputEnded: true)
            return .keepWaiting
        }
    }

    /// The worker reported the stack's result.
    mutating func workerResult(_ outcome: PAMOutcome) -> FinishAction {
        switch state {
        case .running: finish(outcome)
        case .initial, .relaying, .finished: preconditionFailure("no worker running")
        }
    }

    /// The worker is gone without a result (its socket closed, a malformed frame, a send that
    /// failed), or the wait can no longer follow it (a failed poll): a counted failure, never a
    /// success.
    mutating func workerGone() -> FinishAction {
        finish(.aborted)
    }

    /// A signal, ``AuthContext/invalidate()`` or a `did-enter-background`: the wait ends at once.
    /// The driver's caller reads the interruption itself (it decides the evaluation's outcome).
    mutating func interrupted(_ interruption: Interruption) -> FinishAction {
        finish(.aborted)
    }

    private mutating func finish(_ outcome: PAMOutcome, fallbackChosen: Bool = false) -> FinishAction {
        switch state {
        case .initial, .running, .relaying:
            state = .finished
            return .killWorkerAndFinish(outcome, fallbackChosen: fallbackChosen)
        case .finished:
            preconditionFailure("finished twice")
        }
    }
}
