import Foundation
import Testing

/// A real terminal for one command: a tmux server on its own socket (`-f /dev/null`) whose only
/// pane runs `command` (through `/bin/sh -c`), typed at with `send-keys` and read with
/// `capture-pane`, in the world's environment (its store, user and PAM stacks through
/// `TOUCHGATE_PAM_CONFDIR`). Started with an empty signal mask and default dispositions.
///
/// Everything it does is `async`: each tmux command runs and is waited for on a thread of its own
/// (``RunningProcess/runOnAThreadOfItsOwn(_:input:environment:timeout:)``) and its waits sleep
/// (``eventually(_:timeout:_:)``), so a test that drives a pane never holds one of the cooperative
/// pool's few threads, which every other test needs.
final class PaneTerminal {
    let world: TestEnvironment
    let socket: String
    private var running = false
    /// The server's pid (`#{pid}`), for ``shutdown()``.
    private var serverPID: pid_t = 0

    init(world: TestEnvironment, command: String, name: String = "term") async throws {
        self.world = world
        socket = world.directory.appendingPathComponent("\(name).sock").path
        _ = try await tmux(["-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "200", "-y", "40", command])
        running = true
        serverPID = pid_t(try await tmux(["display-message", "-p", "#{pid}"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        // A test process that crashes runs no deinit: this shell ends the server once it is gone.
        let watchdog = """
            ( while kill -0 \(getpid()) 2>/dev/null && [ -d '\(world.directory.path)' ]; do sleep 1; done
              tmux -S '\(socket)' kill-server ) >/dev/null 2>&1 </dev/null &
            """
        _ = try await RunningProcess.runOnAThreadOfItsOwn(["/bin/sh", "-c", watchdog], environment: TmuxHarness.environment(of: world),
                                                          timeout: 10)
    }

    deinit { shutdown() }

    /// Ends the server as `kill-server` does (tmux's `kill-server` is a SIGTERM the server sends
    /// itself: it destroys every session and exits), without waiting for a tmux client: a test's
    /// `defer` cannot `await`, and this holds no cooperative-pool thread. The signal goes only to
    /// a process that is still this server (its command line names this socket).
    func shutdown() {
        guard running else { return }
        running = false
        guard serverPID > 0, let command = FileManager.default.contents(atPath: "/proc/\(serverPID)/cmdline"),
              command.split(separator: 0).contains(where: { String(decoding: $0, as: UTF8.self) == socket }) else { return }
        kill(serverPID, SIGTERM)
    }

    @discardableResult
    func tmux(_ arguments: [String]) async throws -> RunResult {
        let result = try await RunningProcess.runOnAThreadOfItsOwn(["/usr/bin/tmux", "-S", socket] + arguments,
                                                                   environment: TmuxHarness.environment(of: world), timeout: 20)
        guard result.status == 0 else { throw TestFailure("tmux \(arguments.joined(separator: " ")) failed: \(result)") }
        return result
    }

    /// The pane as the user sees it.
    func screen() async throws -> String {
        try await tmux(["capture-pane", "-p", "-t", "t"]).stdout
    }

    /// A pane variable (`#{alternate_on}`, `#{pane_title}`, `#{pane_pid}`).
    func variable(_ name: String) async throws -> String {
        try await tmux(["display-message", "-p", "-t", "t", "#{\(name)}"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @discardableResult
    func waitForScreen(containing text: String, timeout: TimeInterval = 15) async throws -> String {
        try await waitForScreen("'\(text)' on the screen", timeout: timeout) { $0.contains(text) }
    }

    /// Waits until `condition` holds for the screen; returns that screen.
    @discardableResult
    func waitForScreen(_ what: String, timeout: TimeInterval = 15, _ condition: (String) -> Bool) async throws -> String {
        var last = ""
        do {
            try await eventually(what, timeout: timeout) {
                last = try await screen()
                return condition(last)
            }
        } catch {
            throw TestFailure("\(error); last screen:\n\(last)")
        }
        return last
    }

    /// Types tmux key names (`C-c`, `Enter`), or literal text with `literal`.
    func type(_ keys: String..., literal: Bool = false) async throws {
        try await tmux(["send-keys", "-t", "t"] + (literal ? ["-l"] : []) + keys)
    }

    func typeLine(_ text: String) async throws {
        if !text.isEmpty { try await tmux(["send-keys", "-t", "t", "-l", text]) }
        try await type("Enter")
    }

    /// The pid of the process the pane started, and of its children (`/proc/PID/task/PID/children`).
    func panePID() async throws -> pid_t {
        guard let pid = pid_t(try await variable("pane_pid")) else { throw TestFailure("no pane pid") }
        return pid
    }

    /// The one `touchgate` process under the pane (its command or a job of its shell), once it runs.
    func touchgatePID(timeout: TimeInterval = 15) async throws -> pid_t {
        var found: pid_t?
        try await eventually("touchgate to run in the pane", timeout: timeout) {
            found = Self.descendants(of: try await panePID()).first { pid in
                (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.hasPrefix("touchgate") == true
            }
            return found != nil
        }
        return found!
    }

    static func descendants(of pid: pid_t) -> [pid_t] {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        let children = text.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return children + children.flatMap(descendants(of:))
    }

    /// Waits until touchgate process `pid` waits at a terminal prompt: blocked in `poll` with no
    /// timeout on the terminal and its interrupter (and, since the prompts redraw after a stop,
    /// their redraw pipe), as `/proc/PID/syscall` shows; a countdown's or a waiting gate's `poll`
    /// watches one descriptor with a timeout. Only then is a key typed sure not to be discarded
    /// as type-ahead.
    func waitUntilPrompting(_ pid: pid_t, timeout: TimeInterval = 15) async throws {
        var last = ""
        do {
            try await eventually("process \(pid) to wait at a prompt", timeout: timeout) {
                last = (try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8)) ?? ""
                let fields = last.split(separator: " ")
                // poll (7 on x86_64) or ppoll (271 on x86_64, 73 on aarch64); the second argument is nfds.
                guard fields.count > 3, ["0x2", "0x3"].contains(String(fields[2])) else { return false }
                switch fields[0] {
                case "7": return ["0xffffffff", "0xffffffffffffffff"].contains(String(fields[3]))
                case "271", "73": return fields[3] == "0x0"
                default: return false
                }
            }
        } catch {
            throw TestFailure("\(error); /proc/\(pid)/syscall: \(last); screen:\n\((try? await screen()) ?? "")")
        }
    }
}

/// Polls `condition` every 50 ms until it holds, or fails after `timeout`; sleeps without holding
/// a thread (``gateEventually(_:timeout:_:)`` for async tests).
func eventually(
    _ what: @autoclosure () -> String, timeout: TimeInterval = 10, _ condition: () async throws -> Bool
) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while try await !condition() {
        guard Date() < deadline else { throw TestFailure("timed out after \(timeout) s waiting for \(what())") }
        try await Task.sleep(for: .milliseconds(50))
    }
}
