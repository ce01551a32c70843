import Foundation
import Testing

/// Additions to ``TestEnvironment`` for the lifecycle and gate suites.
extension TestEnvironment {
    /// The stored row of `session` as `state|locked|background_since|prompt_pid|updated`, or "" when absent.
    func gateSessionRow(_ session: String) throws -> String {
        try sqlite("SELECT state, locked, background_since, prompt_pid, updated FROM sessions WHERE id = '\(session)'")
    }

    /// `(state, locked)` of `session` from `touchgate --json status`, or `nil` when it is not listed.
    func gateSessionStatus(_ session: String) throws -> (state: String, locked: Bool)? {
        let result = try run(["--json", "status"])
        guard result.status == 0, let sessions = result.json?["sessions"] as? [[String: Any]] else {
            throw TestFailure("status failed: \(result)")
        }
        guard let entry = sessions.first(where: { $0["id"] as? String == session }),
              let state = entry["state"] as? String, let locked = entry["locked"] as? Bool else { return nil }
        return (state, locked)
    }

    /// Runs `touchgate event NAME --session ID` for each name; fails unless each exits 0.
    func gateEvents(_ names: [String], session: String) throws {
        for name in names {
            let result = try run(["event", name, "--session", session])
            guard result.status == 0 else { throw TestFailure("event \(name) failed: \(result)") }
        }
    }

    /// How many audit rows have `factor` and `outcome`.
    func gateAuditCount(factor: String, outcome: String) throws -> Int {
        Int(try sqlite("SELECT count(*) FROM audit WHERE factor = '\(factor)' AND outcome = '\(outcome)'")) ?? -1
    }

    /// Settings that let a test type many wrong answers without lockouts or throttling getting in
    /// the way; set while the lock is still off, so no authentication is needed.
    func gateRelaxLockout() throws {
        for (key, value) in [("passcode-delays", "0"), ("max-biometric-failures", "100")] {
            let result = try run(["config", "set", key, value])
            guard result.status == 0 else { throw TestFailure("config set \(key) failed: \(result)") }
        }
    }
}

/// Polls `condition` every 50 ms until it holds, or fails after `timeout` with `message()`.
func gateEventually(
    _ what: @autoclosure () -> String, timeout: TimeInterval = 30, _ condition: () throws -> Bool
) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while try !condition() {
        guard Date() < deadline else { throw TestFailure("timed out after \(timeout) s waiting for \(what())") }
        Thread.sleep(forTimeInterval: 0.05)
    }
}

/// Two real tmux servers on their own sockets in the world's directory: the inner one runs the
/// sessions under test with the snippet from `touchgate tmux-conf`; the outer one gives an inner
/// client a terminal, so a test sees what the user sees (`capture-pane`) and types (`send-keys`).
final class TmuxHarness {
    let world: TestEnvironment
    let innerSocket: String
    let outerSocket: String
    let configuration: String
    private var started: [String] = []
    private var serverPIDs: [pid_t] = []

    /// - Parameter extraConfiguration: appended to the generated snippet.
    /// - Parameter innerSocket: where the inner server listens (default: `inner.sock` in the world).
    init(world: TestEnvironment, extraConfiguration: String = "", innerSocket: String? = nil) throws {
        self.world = world
        self.innerSocket = innerSocket ?? world.directory.appendingPathComponent("inner.sock").path
        outerSocket = world.directory.appendingPathComponent("outer.sock").path
        configuration = world.directory.appendingPathComponent("tmux.conf").path
        let snippet = try TestEnvironment.execute(TestEnvironment.binary, ["tmux-conf"], environment: Self.environment(of: world))
        guard snippet.status == 0 else { throw TestFailure("tmux-conf failed: \(snippet)") }
        // A status line would put the session name and clock on every capture.
        let text = snippet.stdout + "\nset -g status off\n" + extraConfiguration + "\n"
        try text.write(toFile: configuration, atomically: true, encoding: .utf8)
    }

    /// Kills both servers (and with them every client, gate and shell they run).
    func shutdown() {
        if started.contains(outerSocket), let panes = try? outer("list-panes", "-a", "-F", "#{pane_pid}") {
            for pane in panes.stdout.split(separator: "\n").compactMap({ pid_t($0) }) { killProcessGroup(pane) }
        }
        for socket in started {
            _ = try? Self.spawn("/usr/bin/tmux", ["-S", socket, "kill-server"], environment: environment, timeout: 5)
        }
        let deadline = Date().addingTimeInterval(3)
        for pid in serverPIDs {
            while kill(pid, 0) == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            if kill(pid, 0) == 0 { kill(pid, SIGKILL) }
        }
        started.removeAll()
        serverPIDs.removeAll()
    }

    deinit { shutdown() }

    /// The environment of both servers and so of every client, hook, lock-command and shell: the
    /// store and the user of the world, and its PAM stacks read through `pam_start_confdir`
    /// (`TOUCHGATE_PAM_CONFDIR`) rather than pam_wrapper.
    var environment: [String: String] { Self.environment(of: world) }

    static func environment(of world: TestEnvironment) -> [String: String] {
        var environment = world.environment
        for name in ["LD_PRELOAD", "PAM_WRAPPER", "PAM_WRAPPER_SERVICE_DIR", "PAM_WRAPPER_RUNTIME_DIR"] {
            environment[name] = nil
        }
        // The world reads its stacks through pam_start_confdir: nothing in tmux preloads pam_wrapper.
        environment["TOUCHGATE_PAM_CONFDIR"] = world.pamDirectory.path
        environment["TERM"] = "xterm-256color"
        environment["SHELL"] = "/bin/sh"
        environment["ENV"] = nil
        return environment
    }

    @discardableResult
    func tmux(_ socket: String, _ arguments: [String]) throws -> RunResult {
        let result = try Self.spawn("/usr/bin/tmux", ["-S", socket] + arguments, environment: environment, timeout: 20)
        guard result.status == 0 else { throw TestFailure("tmux \(arguments.joined(separator: " ")) failed: \(result)") }
        return result
    }

    /// Notes the pid of the server on `socket`, so ``shutdown()`` can make sure it is gone; a
    /// server noted already is noted once.
    private func recordServer(_ socket: String) throws {
        if started.isEmpty { try startWatchdog() }
        if !started.contains(socket) { started.append(socket) }
        let pid = try tmux(socket, ["display-message", "-p", "#{pid}"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        if let pid = pid_t(pid), !serverPIDs.contains(pid) { serverPIDs.append(pid) }
    }

    /// A test process that crashes runs no `defer`: an orphaned shell then kills both servers
    /// once the test process is gone (and simply ends once the world's directory is removed).
    private func startWatchdog() throws {
        let directory = world.directory.path
        let script = """
            ( while kill -0 \(getpid()) 2>/dev/null && [ -d '\(directory)' ]; do sleep 1; done
              tmux -S '\(innerSocket)' kill-server 2>/dev/null; tmux -S '\(outerSocket)' kill-server 2>/dev/null ) \
              >/dev/null 2>&1 </dev/null &
            """
        _ = try Self.spawn("/bin/sh", ["-c", script], environment: environment, timeout: 10)
    }

    /// Runs a program to completion with an empty signal mask and default signal dispositions.
    ///
    /// The test runner's threads block most signals, and a child inherits the mask across exec: a
    /// tmux server started with SIGCHLD blocked never sees its run-shell jobs (the hooks) finish,
    /// and one started with SIGTERM blocked never exits. tmux must start as it would from a shell.
    static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String], timeout: TimeInterval
    ) throws -> RunResult {
        try RunningProcess.run([executable] + arguments, environment: environment, timeout: timeout)
    }

    @discardableResult
    func inner(_ arguments: String...) throws -> RunResult { try tmux(innerSocket, arguments) }

    @discardableResult
    func outer(_ arguments: String...) throws -> RunResult { try tmux(outerSocket, arguments) }

    /// Starts the inner server with session `name` running `command`, and waits until the
    /// session-created hook has recorded the session's launch.
    /// With `snippet` false the server starts without the snippet (a server that ran before it
    /// was loaded): nothing is recorded.
    func startInnerSession(_ name: String = "s", command: String = "exec /bin/sh", snippet: Bool = true) throws {
        if started.contains(innerSocket) {
            try inner("new-session", "-d", "-s", name, "-x", "100", "-y", "30", command)
        } else {
            try tmux(innerSocket, ["-f", snippet ? configuration : "/dev/null", "new-session", "-d", "-s", name,
                                   "-x", "100", "-y", "30", command])
            try recordServer(innerSocket)
        }
        guard snippet else { return }
        let id = try sessionID(name)
        try gateEventually("the launch of \(id) to be recorded") { try world.gateSessionStatus(id) != nil }
    }

    /// The touchgate session id of inner session `name`: `tmux-<server pid>-$<n>`.
    func sessionID(_ name: String = "s") throws -> String {
        let id = try inner("display-message", "-p", "-t", name, "tmux-#{pid}-#{session_id}").stdout
        return id.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What a client of the inner server runs in the outer pane: Ctrl-C reaching the pane before
    /// the client takes the terminal must not end the pane itself (it would end the test's terminal,
    /// not touch the gate); the client gets its own dispositions when it starts.
    /// A pane's shell can still be ended by a Ctrl-C before its `trap`: the outer server keeps
    /// such a pane (`remain-on-exit`) so the next client respawns it. `delay` seconds pass
    /// between the `trap` (then the pane shows CLIENT-WAITING) and the client.
    private func clientCommand(_ tmuxCommand: String, log: String? = nil, delay: Double = 0) -> String {
        let client = "env -u TMUX tmux -S '\(innerSocket)' \(tmuxCommand)"
        // script(1) copies every byte the client writes to its terminal into the log, unfiltered.
        let run = log.map { "script -q -f -e -c \"\(client)\" '\($0)'" } ?? client
        // The marker on a line of its own: keys echoed before it (a row of ^C) would wrap it.
        // With a delay, CLIENT-WAITING says the pane ignores Ctrl-C from now on.
        return "trap '' INT QUIT TSTP; \(delay > 0 ? "echo CLIENT-WAITING; sleep \(delay); " : "")\(run); echo; echo CLIENT-EXITED; sleep 600"
    }

    /// Runs `tmux -S INNER tmuxCommand` as a client in outer pane `pane`, every byte it writes to
    /// its terminal logged to `log` (the raw output, escape sequences and all), `delay` seconds
    /// after the pane starts.
    func runLoggedClient(_ tmuxCommand: String, log: String, pane: String = "o", delay: Double = 0) throws {
        try runClient(tmuxCommand, pane: pane, log: log, delay: delay)
    }

    /// Runs `tmux -S INNER tmuxCommand` as a client in each of `panes` (new outer sessions), each
    /// logged to its own file in `logs`: all the panes start from one outer command, so the
    /// clients start together, `delay` seconds later.
    func runLoggedClientsAtOnce(_ tmuxCommand: String, panes: [String], logs: [String], delay: Double) throws {
        var arguments: [String] = []
        for (pane, log) in zip(panes, logs) {
            arguments += (arguments.isEmpty ? [] : [";"])
                + ["new-session", "-d", "-s", pane, "-x", "100", "-y", "30", clientCommand(tmuxCommand, log: log, delay: delay)]
        }
        try runOuter(arguments)
    }

    /// Runs `arguments` on the outer server, which they start when it does not run (the first
    /// time, or again after its last session ended): without a configuration, dead panes kept,
    /// and recorded for ``shutdown()``.
    private func runOuter(_ arguments: [String]) throws {
        try tmux(outerSocket, ["-f", "/dev/null"] + arguments + [";", "set-option", "-g", "remain-on-exit", "on"])
        try recordServer(outerSocket)
    }

    /// Attaches a client to inner session `session` in outer pane `pane` (a new outer session),
    /// read-only (`-r`) with `readOnly`.
    func attach(_ session: String = "s", pane: String = "o", readOnly: Bool = false) throws {
        try runClient("attach-session \(readOnly ? "-r " : "")-t '\(session)'", pane: pane)
    }

    /// Creates inner session `name` running `command` from a client in outer pane `pane`, as
    /// `tmux new-session` typed in a terminal does (the inner server must be running).
    func attach(newSession name: String, command: String, pane: String = "o") throws {
        let quoted = "'" + command.replacingOccurrences(of: "'", with: "'\\''") + "'"
        try runClient("new-session -s '\(name)' -x 100 -y 30 \(quoted)", pane: pane)
    }

    /// Ends what runs in an outer pane, script(1) included: it outlives a hang-up of its
    /// terminal, and so would the client or gate on its own terminal (a gate from an earlier
    /// client of the same test would then hold the session's prompt).
    private func killProcessGroup(_ pane: pid_t) {
        kill(-pane, SIGKILL)
    }

    /// Ends what runs in outer pane `pane` (``killProcessGroup(_:)``); the pane stays, dead.
    private func killPaneProcesses(_ pane: String) throws {
        if let pid = pid_t(try outer("display-message", "-p", "-t", pane, "#{pane_pid}").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)) { killProcessGroup(pid) }
    }

    /// Ends outer pane `pane` and all that runs in it (its client, the gate that replaced it).
    func killOuterPane(_ pane: String) throws {
        try killPaneProcesses(pane)
        try outer("kill-session", "-t", pane)
    }

    private func runClient(_ tmuxCommand: String, pane: String, log: String? = nil, delay: Double = 0) throws {
        let command = clientCommand(tmuxCommand, log: log, delay: delay)
        if started.contains(outerSocket), (try? outer("has-session", "-t", pane)) != nil {
            try killPaneProcesses(pane)
            try outer("respawn-pane", "-k", "-t", pane, command)
        } else {
            try runOuter(["new-session", "-d", "-s", pane, "-x", "100", "-y", "30", command])
        }
    }

    /// The client's screen as the user sees it.
    func screen(_ pane: String = "o") throws -> String {
        try outer("capture-pane", "-p", "-t", pane).stdout
    }

    /// Waits until the client's screen contains `text`; returns that screen.
    @discardableResult
    func waitForScreen(containing text: String, pane: String = "o", timeout: TimeInterval = 30) throws -> String {
        var last = ""
        do {
            try gateEventually("'\(text)' on the screen", timeout: timeout) {
                last = try screen(pane)
                return last.contains(text)
            }
        } catch {
            throw TestFailure("'\(text)' never appeared on the screen; last screen:\n\(last)")
        }
        return last
    }

    /// Types into the client's terminal: tmux key names (`C-c`, `Enter`) or literal text with `literal`.
    func type(_ keys: String..., pane: String = "o", literal: Bool = false) throws {
        try tmux(outerSocket, ["send-keys", "-t", pane] + (literal ? ["-l"] : []) + keys)
    }

    /// Types `text` and Enter.
    func typeLine(_ text: String, pane: String = "o") throws {
        if !text.isEmpty { try type(text, pane: pane, literal: true) }
        try type("Enter", pane: pane)
    }

    /// The name of the inner server's one client, once it is attached: after an unlock the gate
    /// attaches the client again, so for a moment there is none.
    func attachedClient() throws -> String {
        var name = ""
        try gateEventually("a client attached to the inner server") {
            name = try inner("list-clients", "-F", "#{client_name}").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            return !name.isEmpty
        }
        return name
    }

    /// The text of inner session `session`'s pane, as tmux holds it (whatever any client shows).
    func innerPane(_ session: String = "s") throws -> String {
        try inner("capture-pane", "-p", "-t", session).stdout
    }
}
