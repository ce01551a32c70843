/// The gate when the store cannot be read: the same ``GateStateMachine``, without a prompt to
/// claim or a session to unlock, and with ``OfflinePasscodeCheck`` (counted in memory) as its
/// evaluation. It never opens without the passcode.
public final class OfflineGate {
    public let user: String
    public let session: String
    let interrupter: Interrupter
    let prompts: any PromptSource
    let scripted: Bool
    /// Said with every notice: why only the passcode can unlock.
    let storeProblem: String
    private var check: OfflinePasscodeCheck
    private let now: () -> Double

    public init(
        user: String, session: String, checker: any CredentialChecker, prompts: any PromptSource, interrupter: Interrupter,
        scripted: Bool, storeError: StoreError, now: @escaping () -> Double = { WallClock().now }
    ) {
        self.user = user
        self.session = session
        self.interrupter = interrupter
        self.prompts = prompts
        self.scripted = scripted
        self.storeProblem = storeError.description
        self.check = OfflinePasscodeCheck(checker: checker, user: user)
        self.now = now
    }

    public func run(on screen: any GateScreen) -> GateEnd {
        var machine = GateStateMachine(scripted: scripted, claimsPrompt: false)
        var action = machine.start()
        let status = GateStatus(user: user, session: session, lines: [])
        func notice(_ notice: String?) -> String {
            guard let notice else { return "The touchgate store cannot be read (\(storeProblem)); only the passcode can unlock." }
            return "\(notice) The store cannot be read; only the passcode can unlock."
        }
        while true {
            switch action {
            case .evaluate(let text, let clearInterruption):
                if clearInterruption { interrupter.clear() }
                if screen.terminalGone { action = machine.terminalGone(); continue }
                screen.showStatus(status, notice: notice(text))
                do {
                    try check.attempt(prompts: prompts, interrupter: interrupter, now: now())
                    action = machine.evaluationEnded(nil)
                } catch {
                    action = machine.evaluationEnded(error, terminalGone: screen.terminalGone)
                }
            case .countDown(let seconds):
                screen.showCountdown(seconds)
                action = screen.tick(&machine, interrupter: interrupter)
            case .redrawCountdown(let seconds):
                screen.redrawCountdown(seconds)
                action = screen.tick(&machine, interrupter: interrupter)
            case .waitForEnter(let text):
                screen.showStatus(status, notice: notice(text))
                action = machine.enterWaitEnded(screen.waitForEnter(), terminalGone: screen.terminalGone)
            case .finish(let end, let say):
                if let say { screen.say(say) }
                return end
            case .claimPrompt, .takeOverPrompt, .waitForOwner(_, _), .unlockSession, .resume:
                preconditionFailure("the offline gate claims and unlocks nothing")
            }
        }
    }
}
