/// What the PAM helper shows a host besides the stacks' own prompts and lines: as little as
/// pam_unix does when only the password is asked.
///
/// The passcode's try shows nothing of touchgate's (the host's prompt alone: sudo's "[sudo]
/// password for alice:", su's "Password:"). A biometric try's line waits (``pending``) until the
/// biometric stack shows something (pam_fprintd's "Place your finger…"): a stack that answers at
/// once that there is no reader or no print shows nothing, and nor does its end. Counts and
/// delays ("3 tries left…") are not shown when ``silent`` (the module's `silent` option, the
/// host's `PAM_SILENT`, or a remote host, which is told nothing it could count on).
final class HostWording {
    let silent: Bool
    /// The biometric try's line, not shown yet.
    private(set) var pending: [String] = []

    init(silent: Bool) {
        self.silent = silent
    }

    /// The lines to show now for `event`.
    func lines(for event: PromptEvent) -> [String] {
        switch event {
        case .tryStarted(let step):
            pending = step.factor == .biometric ? PromptWording.lines(for: event) : []
            return []
        case .factorUnavailable:
            // A try that showed nothing ends as it began: unseen.
            if !pending.isEmpty {
                pending = []
                return []
            }
            return PromptWording.lines(for: event)
        case .tryFailed(let factor, _):
            pending = []
            guard silent else { return PromptWording.lines(for: event) }
            // A wrong scan still says so (the host has no words for it), without the count.
            return factor == .biometric ? ["touchgate: " + PromptWording.wrongTry(.biometric, AttemptsLeft(inEvaluation: nil, beforeStop: nil))] : []
        case .answerRefused:
            return PromptWording.lines(for: event)
        }
    }

    /// The held lines, to show before what the biometric stack shows first.
    func takePending() -> [String] {
        defer { pending = [] }
        return pending
    }
}
