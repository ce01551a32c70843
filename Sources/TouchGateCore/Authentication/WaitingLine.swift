/// What a prompt source has for a biometric wait that asks no question.
package enum WaitingLine: Sendable, Equatable {
    /// No whole line yet.
    case nothing
    /// An empty line, consumed: the fallback.
    case empty
    /// A non-empty line, left for the next prompt to read (under device-owner: the passcode).
    case text
    /// The input ended; the wait goes on for the sensor alone.
    case endOfInput
}
