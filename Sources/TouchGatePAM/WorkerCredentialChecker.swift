import Glibc
import TouchGateSystem
import TouchGateCore
import TouchGateTerminal

/// Checks a credential in a worker process (``BiometricWorker``) that can be killed at any time:
/// the biometric factor, whose modules may wait for a sensor long after the user chose to leave.
///
/// The parent keeps the terminal, the store and the count; the worker runs only the PAM
/// transaction, relaying the stack's questions here (answered through the ``Conversation``, as
/// in-process) and its information and error lines. A cancel, a signal, the fallback chosen
/// during the wait, or a question left unanswered kills the worker's process group at once, so a
/// reader it had claimed is released for the next try. A worker that dies without a result fails
/// closed: a counted failure, never a success. Those decisions are the ``BiometricWaitStateMachine``'s;
/// this type only does the I/O.
public struct WorkerCredentialChecker: CredentialChecker {
    /// The stacks and the items passed to them (configuration directory, `PAM_TTY`, `PAM_RHOST`).
    public let base: PAMCredentialChecker
    /// The program that runs ``BiometricWorker/run(_:)`` for `__biometric-worker SERVICE USER`.
    public let executable: String

    public init(base: PAMCredentialChecker, executable: String = "/proc/self/exe") {
        self.base = base
        self.executable = executable
    }

    public func serviceExists(_ service: String) -> Bool { base.serviceExists(service) }

    public func missingServiceDescription(_ service: String, role: String) -> String {
        base.missingServiceDescription(service, role: role)
    }

    public func check(
        service: String, user: String, prompts: PromptSource, interrupter: Interrupter, emptyAnswerIsFallback: Bool
    ) -> CredentialCheckResult {
        check(service: service, user: user, prompts: prompts, interrupter: interrupter,
              emptyAnswerIsFallback: emptyAnswerIsFallback, typedLineIsPasscode: false)
    }

    /// The driver of a ``BiometricWaitStateMachine``: spawns the worker, polls its socket, the
    /// interrupter and (while the machine watches it) the input, feeds what arrives to the machine
    /// and performs its actions.
    ///
    /// The corresponding C functions are `socketpair`, `posix_spawn`, `poll`, `kill` and `waitpid`.
    public func check(
        service: String, user: String, prompts: PromptSource, interrupter: Interrupter, emptyAnswerIsFallback: Bool,
        typedLineIsPasscode: Bool
    ) -> CredentialCheckResult {
        let conversation = Conversation(prompts: prompts, interrupter: interrupter, emptyAnswerIsFallback: emptyAnswerIsFallback)
        func result(_ outcome: PAMOutcome) -> CredentialCheckResult {
            CredentialCheckResult(outcome, conversation: conversation)
        }
        let waiting = (emptyAnswerIsFallback ? prompts as? WaitingInput : nil)
        var machine = BiometricWaitStateMachine(inputWatchable: waiting != nil, typedLineIsPasscode: typedLineIsPasscode)
        func finished(_ action: BiometricWaitStateMachine.FinishAction) -> CredentialCheckResult {
            switch action {
            case .killWorkerAndFinish(let outcome, let fallbackChosen):
                // The worker is killed and reaped on the way out (`end`).
                if fallbackChosen { conversation.chooseFallback() }
                return result(outcome)
            }
        }
        func notSpawned() -> CredentialCheckResult { finished(machine.notSpawned()) }
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            return notSpawned()
        }
        let worker = spawn(service: service, user: user, socket: ends[1])
        close(ends[1])
        defer { close(ends[0]) }
        guard let worker else {
            return notSpawned()
        }
        defer { end(worker) }
        let channel = WorkerChannel(descriptor: ends[0])

        switch machine.started() {
        case .sendStart:
            let items = WorkerChannel.joined([
                base.configurationDirectory ?? "", base.terminal ?? "", base.remoteHost ?? "", String(getpid())])
            guard channel.send(.start, items) else { return finished(machine.workerGone()) }
        }
        while true {
            let message: BiometricWaitStateMachine.MessageAction
            switch nextEvent(&machine, channel: channel, interrupter: interrupter, waiting: waiting) {
            case .finish(let action): return finished(action)
            case .message(let action): message = action
            }
            switch message {
            case .show(let text):
                prompts.show(text)
            case .showAndStartWatchingInput(let text, let passcode):
                prompts.show(text)
                waiting?.waitingStarted(typedLineIsPasscode: passcode)
            case .relayQuestion(let text, let echo):
                // The answer wipes itself once sent (or when the question was not answered).
                switch conversation.respond(style: .question(echo: echo), text: text) {
                case .answer(let answer):
                    switch machine.answered() {
                    case .sendAnswer:
                        if !answer.withUnsafeBytes({ channel.send(.answer, $0) }) { return finished(machine.workerGone()) }
                    }
                default:
                    return finished(machine.notAnswered())
                }
            case .killWorkerAndFinish(let outcome, let fallbackChosen):
                return finished(.killWorkerAndFinish(outcome, fallbackChosen: fallbackChosen))
            }
        }
    }

    /// What the next event of the wait asked: a message's action, or the end.
    private enum WaitEvent {
        case message(BiometricWaitStateMachine.MessageAction)
        case finish(BiometricWaitStateMachine.FinishAction)
    }

    /// Waits for the next event of the wait and feeds it to `machine`: an interruption first, then
    /// a line typed (while the machine watches the input), then a frame from the worker.
    private func nextEvent(
        _ machine: inout BiometricWaitStateMachine, channel: WorkerChannel, interrupter: Interrupter, waiting: WaitingInput?
    ) -> WaitEvent {
        while true {
            if let interruption = interrupter.pending { return .finish(machine.interrupted(interruption)) }
            let input = machine.watchesInput ? waiting : nil
            var fds = (
                pollfd(fd: channel.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: interrupter.fileDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: input?.waitingDescriptor ?? -1, events: Int16(POLLIN), revents: 0)
            )
            let ready = retryingInterrupts {
                withUnsafeMutableBytes(of: &fds) { poll($0.baseAddress!.assumingMemoryBound(to: pollfd.self), 3, -1) }
            }
            if ready < 0 {
                return .finish(machine.workerGone())
            }
            // The interruption is read at the top.
            if fds.1.revents != 0 { continue }
            if fds.2.revents != 0, let input {
                switch machine.lineTyped(input.peekLine(keepText: machine.keepsTypedLine)) {
                case .keepWaiting: break
                case .killWorkerAndFinish(let outcome, let fallbackChosen):
                    return .finish(.killWorkerAndFinish(outcome, fallbackChosen: fallbackChosen))
                }
            }
            guard fds.0.revents != 0 else { continue }
            guard let frame = channel.receive() else { return .finish(machine.workerGone()) }
            switch frame.kind {
            case .message:
                guard let (style, text) = WorkerChannel.message(frame.publicBytes) else { return .finish(machine.workerGone()) }
                return .message(machine.workerMessage(style: style, text: TerminalText.sanitized(bytes: text, limit: 512)))
            case .result:
                guard let end = WorkerChannel.result(frame.publicBytes) else { return .finish(machine.workerGone()) }
                return .finish(machine.workerResult(end.outcome))
            default:
                return .finish(machine.workerGone())
            }
        }
    }

    /// Starts the worker in a process group of its own, with the socket as descriptor 3, no
    /// terminal (standard input, output and error are `/dev/null`: a module's raw output never
    /// reaches the screen), default signal dispositions and an empty signal mask.
    private func spawn(service: String, user: String, socket: Int32) -> ChildProcess? {
        // Nothing else of the parent's (the store, the terminal) reaches the worker, even a
        // descriptor opened without close-on-exec.
        try? ChildProcess.spawn(
            ["touchgate", BiometricWorker.command, service, user], program: FilePath(executable),
            fileActions: ChildProcess.FileAction.nullStandardStreams
                + [.dup2(socket, BiometricWorker.descriptor), .closeFrom(BiometricWorker.descriptor + 1)],
            newProcessGroup: true, inheritSignals: false)
    }

    /// Kills the worker's process group (a module's children too) and reaps the worker.
    private func end(_ worker: ChildProcess) {
        worker.killAndReap(group: true)
    }
}
