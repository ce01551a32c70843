import Glibc
import TouchGate

/// Carries out one parsed ``Invocation``: the I/O side of the tool. It resolves the environment
/// once (the store, the user, one clock, the process probe), calls the library's use case for
/// the command and renders the result and the exit status.
package struct Runner {
    package let invocation: Invocation
    let environment = ProcessEnvironment.current
    /// The options and environment this invocation resolves its store, user and session from.
    let invocationContext: InvocationContext
    /// The one clock of this process: the store it opens reads it, and so every decision the
    /// use cases take (``Store/clock``). Only the wall clock: nothing at the keyboard sets it.
    package let clock: any Clock = WallClock()
    /// The processes the use cases look at and signal (prompt owners).
    let probe: any ProcessProbe = SystemProcessProbe()

    package init(invocation: Invocation) {
        self.invocation = invocation
        invocationContext = InvocationContext(storeOption: invocation.storePath, userOption: invocation.user, system: invocation.system)
    }

    mutating func run() -> ExitCode {
        run { runner throws in try runner.dispatch() }
    }

    /// Runs `body` (a command's dispatch: this one's, or `touchgate-demo`'s) and turns what it
    /// throws into the message and exit status every command gives.
    package mutating func run(_ body: (inout Runner) throws -> ExitCode) -> ExitCode {
        do {
            return try body(&self)
        } catch let error as AuthError {
            if let storeError = error.storeError { return fail(storeError.description, ExitCode(storeError)) }
            return report(error)
        } catch let error as StoreError {
            return fail(error.description, ExitCode(error))
        } catch let error as UsageError {
            return fail(error.message, error.exitCode)
        } catch let error as Configuration.InvalidValue {
            return fail(error.description, .badValue)
        } catch let error as SystemPolicy.Refusal {
            return fail(error.description, .badValue)
        } catch let error as SessionLifecycle.InvalidTransition {
            return fail(error.description, .badValue)
        } catch {
            return fail("internal error: \(error)", .internalError)
        }
    }

    private mutating func dispatch() throws -> ExitCode {
        try checkSystemStoreCommand()
        switch invocation.command {
        case .help(let topic):
            return try help(topic)
        case .version:
            let sqlite = SQLiteLibrary.current
            writeLine(STDOUT_FILENO, invocation.json
                ? JSONValue.object([
                    ("version", .string(TouchGateCommand.version)),
                    ("sqlite", .string(sqlite.version)),
                    ("sqliteLibrary", sqlite.sharedLibrary.map(JSONValue.string) ?? .null),
                ]).rendered
                : "touchgate \(TouchGateCommand.version) (\(sqlite.summary))")
            return .success
        case .status: return try status()
        case .enable(let options): return try toggle(true, options)
        case .disable(let options): return try toggle(false, options)
        case .enroll(let options): return try enroll(options)
        case .unenroll(let options): return try unenroll(options)
        case .auth(let options): return try auth(options)
        case .canEvaluate(let options): return try canEvaluate(options)
        case .reset(let options): return try reset(options)
        case .lockdown: return try lockdown()
        case .configGet(let key): return try configGet(key)
        case .configSet(let key, let value, let options): return try configSet(key, value, options)
        case .log(let limit): return try log(limit)
        case .event(let event, let session): return try record(event, session: session)
        case .gate(let options): return try gate(options)
        case .watch(let unit): return try watch(unit: unit)
        case .lock(let session): return try lock(session: session)
        case .tmuxConf: return tmuxConf()
        case .tmuxHook(let hook, let client, let session): return try tmuxHook(hook, client: client, session: session)
        case .shellInit(let shell): return shellInit(shell)
        case .shell(let program, let login): return try shell(program, login: login)
        case .completions(let shell): return completions(shell)
        case .manPage: return manPage()
        case .demo, .testWorldCreate, .testWorldRemove, .testWorldSensor, .testWorldScan: return try runDemoExecutable()
        }
    }

    // MARK: - Shared pieces

    /// The store path (``InvocationContext/storePath``).
    var storePath: FilePath { get throws { try invocationContext.storePath } }

    /// The user (``InvocationContext/user``): `--user`, then `TOUCHGATE_USER`, then the invoking user.
    var user: String { get throws { try invocationContext.user } }

    /// The remote host of an SSH session (``InvocationContext/remoteHost``).
    package var remoteHost: String? { invocationContext.remoteHost }

    /// `--pam-confdir`, then `TOUCHGATE_PAM_CONFDIR` (``InvocationContext/pamConfigurationDirectory(option:)``).
    var pamConfigurationDirectory: String? {
        invocationContext.pamConfigurationDirectory(option: invocation.pamConfigurationDirectory)
    }

    /// The PAM checker every command uses (``InvocationContext/credentialChecker(pamConfigurationDirectory:)``).
    var credentialChecker: PAMCredentialChecker {
        invocationContext.credentialChecker(pamConfigurationDirectory: pamConfigurationDirectory)
    }

    /// The biometric factor's checker: the same stacks, each try in a worker process of this
    /// binary that a cancel, a signal or the fallback can kill while the stack waits for a sensor.
    var biometricChecker: WorkerCredentialChecker {
        WorkerCredentialChecker(base: credentialChecker)
    }

    /// Where answers come from: standard input with `-S`, else the controlling terminal (`nil` without one).
    func makePromptSource() -> (any PromptSource)? {
        InvocationContext.promptSource(fromStandardInput: invocation.answersFromStandardInput)
    }

    /// A context for `user` (``InvocationContext/authContext(store:session:checker:prompts:noInteraction:)``).
    func makeContext(store: Store, session: String?, options: EvaluationOptions) throws -> AuthContext {
        // The session id is checked before the terminal is opened.
        let session = try session.map(InvocationContext.validSession)
        return try invocationContext.authContext(store: store, session: session, checker: credentialChecker, prompts: makePromptSource(),
                                          noInteraction: options.noInteraction)
    }

    /// Prints `json`, or `text` line by line through ``TerminalText`` (it may quote stored values).
    func emit(_ json: JSONValue, text: String?) {
        if invocation.json {
            writeLine(STDOUT_FILENO, json.rendered)
        } else if let text {
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                writeLine(STDOUT_FILENO, TerminalText.sanitized(String(line)))
            }
        }
    }

    package func fail(_ message: String, _ code: ExitCode) -> ExitCode {
        printError(message)
        if invocation.json { printErrorObject(message, code) }
        return code
    }

    /// Prints an evaluation's outcome as `auth` does and returns its exit status.
    func outcome(_ error: AuthError?, policy: String, extra: [(String, JSONValue)] = []) -> ExitCode {
        if invocation.json {
            var members = AuthError.outcomeMembers(error, policy: policy)
            members += extra
            writeLine(STDOUT_FILENO, JSONValue.object(members).rendered)
        } else if let error {
            let hint = notInteractiveHint(error)
            let message = hint.isEmpty || !error.message.hasSuffix(".") ? error.message : String(error.message.dropLast())
            printError("\(message)\(hint) (\(error.code.name))")
        }
        return error.map { ExitCode($0.code) } ?? .success
    }

    /// What to do about a prompt that could not be shown for want of a terminal: answer on
    /// standard input with `-S`. Empty for any other outcome, or when `-S` was given already.
    func notInteractiveHint(_ error: AuthError) -> String {
        guard error.code == .notInteractive, !invocation.answersFromStandardInput else { return "" }
        let terminal = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        if terminal >= 0 {
            close(terminal)
            return ""
        }
        return ": there is no terminal to ask on; pass -S to read the answers from standard input"
    }

    func report(_ error: AuthError) -> ExitCode {
        outcome(error, policy: "")
    }

    /// Runs `body`, turning an ``AuthError`` into the returned value instead of a throw; a store
    /// that failed meanwhile is thrown as its ``StoreError`` (exit 74).
    package func attempt(_ body: () throws -> Void) throws -> AuthError? {
        do {
            try body()
            return nil
        } catch let error as AuthError {
            if let storeError = error.storeError { throw storeError }
            return error
        }
    }
}
