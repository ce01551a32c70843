import Foundation

/// A harness whose program draws in one pane of a private tmux server and ends in a bare prompt:
/// the server's commands, its end and the waits both the shell harness and the owner harness
/// need, written once.
protocol PaneScreen: AnyObject {
    var world: TestEnvironment { get }
    /// The private server's socket.
    var socket: String { get }
    /// The private server's pid, once it runs (``recordServerPID()``).
    var serverPID: pid_t? { get set }
    /// The pane's screen now.
    func screen() throws -> String
    /// What the program is, for a failure's message ("bash", "the owner's").
    var screenName: String { get }
    /// The bare prompt the program's shell shows.
    static var prompt: String { get }
}

extension PaneScreen {
    /// Runs `tmux` on the private server; throws when it fails.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> RunResult {
        let result = try TmuxHarness.spawn("/usr/bin/tmux", ["-S", socket] + arguments,
                                           environment: TmuxHarness.environment(of: world), timeout: 20)
        guard result.status == 0 else { throw TestFailure("tmux \(arguments.joined(separator: " ")) failed: \(result)") }
        return result
    }

    /// Asks the server for its pid, so ``shutdown()`` can wait for it to end.
    func recordServerPID() throws {
        serverPID = pid_t(try tmux(["display-message", "-p", "#{pid}"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Kills the server, and with it everything it runs (the shell, the owner, any gate).
    func shutdown() {
        _ = try? TmuxHarness.spawn("/usr/bin/tmux", ["-S", socket, "kill-server"],
                                   environment: TmuxHarness.environment(of: world), timeout: 5)
        if let pid = serverPID {
            let deadline = Date().addingTimeInterval(3)
            while kill(pid, 0) == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            if kill(pid, 0) == 0 { kill(pid, SIGKILL) }
        }
        serverPID = nil
    }

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
