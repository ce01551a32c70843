import Glibc
import TouchGate
import TouchGateSystem

extension Runner {
    /// `touchgate gate`: exits 0 at once when the session needs no unlock; otherwise covers the
    /// terminal and asks until a successful evaluation, then unlocks the session
    /// (``GateUseCase``, which also holds the gate to the passcode when the store cannot be read).
    func gate(_ options: GateOptions) throws -> ExitCode {
        if !invocation.answersFromStandardInput {
            // At once, before any work: a key held down while the gate starts must not end it.
            SignalRelay.ignore([SIGINT, SIGQUIT, SIGTSTP])
        }
        let id = try invocationContext.requireSession(options.session)
        let request = GateRequest(
            session: id, user: try user, idleSince: options.idleSince, lockRequest: options.lockRequest,
            scripted: invocation.answersFromStandardInput, kind: invocationContext.gateKind(for: id), remoteHost: remoteHost,
            tmuxSocket: options.tmuxSocket, cancelable: options.cancelable)
        let gate = GateUseCase(openStore: openStore, clock: clock, checker: credentialChecker,
                               biometricChecker: biometricChecker)
        switch try gate.run(request, in: GateTerminal(runner: self)) {
        case .open:
            return .success
        case .ended(let end):
            return exitCode(end)
        case .notInteractive(let storeProblem):
            if let storeProblem { printError(storeProblem) }
            return ExitCode(.notInteractive)
        }
    }

    /// The exit status of a gate's end.
    func exitCode(_ end: GateEnd) -> ExitCode {
        switch end {
        case .unlocked: .success
        case .stopped(let error): ExitCode(error.code)
        }
    }

    package func header(user: String, session: String) -> [String] {
        GateCover.header(user: user, label: sessionLabel(session))
    }

    /// What the user knows the session by: the tmux session's name (asked of the server whose pid
    /// the id names, through the socket the hooks recorded or `$TMUX` names, else through the
    /// account's sockets in tmux's directory), the terminal of a shell, else the id itself.
    func sessionLabel(_ id: String, socket recorded: String? = nil) -> String {
        if let target = TmuxEnvironment.target(ofSession: id), let serverPID = TmuxEnvironment.serverPID(ofSession: id) {
            // The server is the one whose pid the id names: the recorded socket or `$TMUX`'s, else
            // (a session the hooks have not recorded yet, as at its launch) the account's sockets.
            for socket in invocationContext.tmuxSockets(for: id, recorded: recorded, searchingTmuxDirectory: true) {
                guard let line = ChildProcess.firstOutputLine(["tmux", "-S", socket, "display-message", "-p", "-t", target,
                                                               "#{pid} #{session_name}"], searchPath: true),
                      line.hasPrefix(serverPID + " ") else { continue }
                return "tmux session \"\(line.dropFirst(serverPID.count + 1))\""
            }
            return id
        }
        if id.hasPrefix("shell-"), let terminal = terminalName() { return "the shell on \(terminal)" }
        return id
    }
}

/// The terminal around `touchgate gate`, for ``GateUseCase``: the prompt source, the session's
/// name (asked of tmux), the tmux clients to lock.
private struct GateTerminal: GateSurroundings {
    let runner: Runner

    func makePromptSource() -> (any PromptSource)? { runner.makePromptSource() }

    func sessionLabel(_ session: String, socket: String?) -> String { runner.sessionLabel(session, socket: socket) }

    func lockClients(of session: String, store: Store, socket: String?) {
        runner.lockTmuxClients(of: session, store: store, socket: socket)
    }
}
