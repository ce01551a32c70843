/// A command line that does not parse; exit 64, one line on standard error naming the rejected
/// word, then the usage line of the command (when the parser got that far).
package struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    package let message: String
    /// 64 for a malformed command line, 65 for a well-formed one with a value that does not validate.
    package let exitCode: ExitCode
    /// `usage: touchgate [options] …`, printed after the message; `nil` for a bad value.
    package let usage: String?

    package init(_ message: String, exitCode: ExitCode = .usage, usage: String? = nil) {
        self.message = message
        self.exitCode = exitCode
        self.usage = usage
    }

    package var description: String { message }
}
