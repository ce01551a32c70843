/// touchgate's own sentences for what an evaluation tells its prompt source (``PromptEvent``).
///
/// The machines say which try of which factor and what is left, never how to say it; a front end
/// that shows them to a person (the CLI, the PAM helper) opts in by setting a prompt source's
/// `wording` to ``lines(for:)``, and a library user may word them otherwise or not at all.
package enum PromptWording {
    /// The lines shown for `event` (with the next prompt).
    package static func lines(for event: PromptEvent) -> [String] {
        switch event {
        case .tryStarted(let step):
            // The reason and the keys, once per factor and evaluation: at its first try.
            guard step.attempt == 1 else { return [] }
            var choices: String
            switch step.factor {
            case .biometric: choices = step.enterTitle.map { "empty answer: \($0)" } ?? ""
            case .passcode: choices = "passcode for \(step.user)"
            }
            if let cancel = step.cancelTitle { choices += (choices.isEmpty ? "" : "; ") + "Ctrl-C: \(cancel)" }
            // Why the finger was not asked for, as iOS says it ("Your passcode is required after a restart.").
            let why = step.passcodeRequired.map { ["touchgate: \($0.sentence)"] } ?? []
            return why + ["touchgate: \(step.reason)" + (choices.isEmpty ? "" : " (\(choices))")]
        case .tryFailed(let factor, let left):
            return ["touchgate: " + wrongTry(factor, left)]
        case .factorUnavailable(_, let code):
            return ["touchgate: \(AuthError(code).message) Use the passcode."]
        case .answerRefused(let reason):
            return ["touchgate: \(reason)"]
        }
    }

    /// "Wrong passcode; 3 tries left before a wait of 60 s." and the like.
    package static func wrongTry(_ factor: Factor, _ left: AttemptsLeft) -> String {
        switch factor {
        case .passcode:
            guard let tries = left.beforeStop, let delay = left.delaySeconds else { return "Wrong passcode." }
            if tries == 0 { return "Wrong passcode; the next try waits \(delay) s." }
            return "Wrong passcode; \(tries) \(tries == 1 ? "try" : "tries") left before a wait of \(delay) s."
        case .biometric:
            guard let tries = left.beforeStop else { return "Not recognized." }
            if tries == 0 { return "Not recognized; biometrics are now locked out: use the passcode." }
            return "Not recognized; \(tries) biometric \(tries == 1 ? "try" : "tries") left before a lockout."
        }
    }
}
