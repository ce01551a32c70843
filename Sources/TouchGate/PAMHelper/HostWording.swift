import TouchGateCore

/// What the PAM helper shows a host besides the stacks' own prompts and lines: as little as
/// pam_unix does when only the password is asked.
///
/// The passcode's try shows nothing of touchgate's (the host's prompt alone: sudo's "[sudo]
/// password for alice:", su's "Password:"). A biometric try's line waits (``pending``) until the
/// biometric stack shows something (pam_fprintd's "Place your finger…"): a stack that answers at
/// once that there is no reader or no print shows nothing, and nor does its end. Counts and
/// delays ("3 tries left…") are not shown when ``silent`` (the module's `silent` option, the
/// host's `PAM_SILENT`, or a remote host, which is told nothing it could count on).
///
/// A rule of ``PasscodeRequirement`` that kept the finger from being tried is said in one line
/// above the host's password prompt ("touchgate: Your passcode is required after a restart."),
/// to a local host even under `PAM_SILENT` (sudo passes it by default; the line holds no count
/// and no time to pace a guess by), never to a remote one (whose finger is never tried anyway,
/// and who is not told that the machine restarted or its user locked the finger), and only to a
/// user whose finger unlocked through this ledger before (``fingerUsed``): one who never used a
/// reader is not told at each first sudo after a boot why a reader they lack was not asked.
final class HostWording {
    let silent: Bool
    /// A remote host (PAM_RHOST): no rule's reason is said.
    let remote: Bool
    /// Whether the user's finger ever unlocked through this ledger: else no rule's reason is said.
    var fingerUsed = true
    /// The biometric try's line, not shown yet.
    private(set) var pending: [String] = []

    init(silent: Bool, remote: Bool = false) {
        self.silent = silent || remote
        self.remote = remote
    }

    /// The lines to show now for `event`.
    func lines(for event: PromptEvent) -> [String] {
        switch event {
        case .tryStarted(let step):
            pending = step.factor == .biometric ? PromptWording.lines(for: event) : []
            if step.factor == .passcode, step.attempt == 1, !remote, fingerUsed, let reason = step.passcodeRequired {
                return ["touchgate: " + reason.sentence]
            }
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
