import Glibc
import TouchGateCore
import TouchGatePAM
import TouchGateStore
import TouchGateTerminal

extension InvocationContext {
    /// `--pam-confdir` (`option`), then `TOUCHGATE_PAM_CONFDIR`; `nil` means `pam_start()` and
    /// the system's stacks.
    package func pamConfigurationDirectory(option: String?) -> String? {
        option ?? self["TOUCHGATE_PAM_CONFDIR"]
    }

    /// The PAM checker every command uses, naming the controlling terminal as `PAM_TTY` and the
    /// SSH client as `PAM_RHOST` (``remoteHost``).
    package func credentialChecker(pamConfigurationDirectory: String?) -> PAMCredentialChecker {
        PAMCredentialChecker(configurationDirectory: pamConfigurationDirectory, terminal: terminalName(), remoteHost: remoteHost)
    }

    /// Where answers come from: standard input with `-S` (`fromStandardInput`), else the
    /// controlling terminal (`nil` without one), worded as touchgate words its prompts.
    package static func promptSource(fromStandardInput: Bool) -> (any PromptSource)? {
        if fromStandardInput {
            let prompts = StandardInputPrompts()
            prompts.wording = PromptWording.lines(for:)
            return prompts
        }
        let prompts = TerminalPrompts()
        prompts?.wording = PromptWording.lines(for:)
        return prompts
    }

    /// A context for this invocation's user, answering through `prompts`, with signals
    /// relayed: Ctrl-C and Ctrl-\ (SIGINT, SIGQUIT) cancel, so neither can kill the process with
    /// a try unsettled. The session id is checked first (exit 65 when it is not printable). The
    /// biometric factor's checker runs each try in a worker process that a cancel, a signal or
    /// the fallback can kill while the stack waits for a sensor.
    package func authContext(store: Store, session: String?, checker: PAMCredentialChecker, prompts: (any PromptSource)?,
                            noInteraction: Bool) throws -> AuthContext {
        let session = try session.map(Self.validSession)
        let context = AuthContext(user: try user, store: store, session: session, checker: checker,
                                  biometricChecker: WorkerCredentialChecker(base: checker), prompts: prompts)
        context.interactionNotAllowed = noInteraction
        context.remoteHost = remoteHost
        SignalRelay.install([SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1], to: context.interrupter)
        return context
    }
}
