import Testing

/// A test argument that the runner shows escaped (`"a\u{1B}[2Jb"`): a raw control character in a
/// test case's name would reach the terminal the tests run in (ESC[2J clears it, a line break
/// splits the line).
struct ShownEscaped: CustomTestStringConvertible, Sendable {
    let value: String
    init(_ value: String) { self.value = value }
    var testDescription: String { value.debugDescription }
}
