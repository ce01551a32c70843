/// A command line that does not parse; exit 64, one line on standard error.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    /// 64 for a malformed command line, 65 for a well-formed one with a value that does not validate.
    public let exitCode: ExitCode

    public init(_ message: String, exitCode: ExitCode = .usage) {
        self.message = message
        self.exitCode = exitCode
    }

    public var description: String { message }
}
