import Foundation

/// A harness whose program draws in one tmux pane ending in a bare prompt: the waits both the
/// shell harness and the owner harness need, written once.
protocol PaneScreen {
    /// The pane's screen now.
    func screen() throws -> String
    /// What the program is, for a failure's message ("bash", "the owner's").
    var screenName: String { get }
    /// The bare prompt the program's shell shows.
    static var prompt: String { get }
}

extension PaneScreen {
    /// Waits until the screen contains `text`; returns that screen.
    @discardableResult
    func waitForScreen(containing text: String, timeout: TimeInterval = 30) throws -> String {
        var last = ""
        do {
            try gateEventually("'\(text)' on the screen", timeout: timeout) {
                last = try screen()
                return last.contains(text)
            }
        } catch {
            throw TestFailure("'\(text)' never appeared on the \(screenName) screen; last screen:\n\(last)")
        }
        return last
    }

    /// True when the last non-empty line of the screen ends in the bare prompt (after a `^C`
    /// echoed on the same line, say).
    func atPrompt() throws -> Bool {
        let lines = try screen().split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        return lines.last { !$0.isEmpty }?.hasSuffix(Self.prompt) == true
    }

    /// Waits until the program shows its bare prompt.
    func waitForPrompt(timeout: TimeInterval = 30) throws {
        do {
            try gateEventually("the \(screenName) prompt", timeout: timeout) { try atPrompt() }
        } catch {
            throw TestFailure("\(error); the screen:\n\(try screen())")
        }
    }
}
