import TouchGateCore
import TouchGateSystem

/// What a prompt got back; not copyable, as the answer it may carry (``SecureBytes``).
public enum PromptAnswer: ~Copyable {
    /// A line, without its newline, wiped when its last owner drops it.
    case answer(SecureBytes)
    /// End of input (Ctrl-D, a closed pipe).
    case endOfInput
    case interrupted(Interruption)
    /// No one can be asked: no terminal, or interaction is not allowed.
    case notInteractive
    /// The line was longer than a PAM response may be, or held a NUL byte; it was discarded.
    case invalid(String)
}
