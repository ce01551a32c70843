/// A command line that does not parse; exit 64, one line on standard error naming the rejected
/// word, then the usage line of the command (when the parser got that far).
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    /// 64 for a malformed command line, 65 for a well-formed one with a value that does not validate.
    public let exitCode: ExitCode
    /// `usage: touchgate [options] …`, printed after the message; `nil` for a bad value.
    public let usage: String?

    public init(_ message: String, exitCode: ExitCode = .usage, usage: String? = nil) {
        self.message = message
        self.exitCode = exitCode
        self.usage = usage
    }

    public var description: String { message }
}
