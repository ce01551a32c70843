/// One positional argument of a command: its name in the synopsis, whether it may be left out,
/// and what completes it.
package struct ArgumentSpec: Sendable {
    package let name: String
    package let optional: Bool
    package let values: CompletionValues
    /// It takes every word after `--` (`shell [-- PROGRAM ARGS]`): the last argument only.
    package let rest: Bool

    package init(_ name: String, optional: Bool = false, values: CompletionValues = .none, rest: Bool = false) {
        self.name = name
        self.optional = optional
        self.values = values
        self.rest = rest
    }

    /// `KEY` or `[KEY]`; `[-- PROGRAM ARGS]` for the rest of the line.
    package var synopsis: String { rest ? "[-- \(name)]" : optional ? "[\(name)]" : name }
}
