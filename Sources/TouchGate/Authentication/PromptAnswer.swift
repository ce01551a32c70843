/// What a prompt got back.
public enum PromptAnswer {
    /// A line, without its newline. The receiver wipes it after use.
    case answer([UInt8])
    /// End of input (Ctrl-D, a closed pipe).
    case endOfInput
    case interrupted(Interruption)
    /// No one can be asked: no terminal, or interaction is not allowed.
    case notInteractive
    /// The line was longer than a PAM response may be, or held a NUL byte; it was discarded.
    case invalid(String)
}
