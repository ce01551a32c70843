import Foundation
import Testing

/// Not one byte of a locked session's content reaches a client's terminal, however the client
/// gets the session: each client runs under script(1), which logs every byte tmux writes to its
/// terminal, and the session's secret line must never be in that log until the gate unlocked.
@Suite struct TmuxRawOutputTests {
    typealias T = TmuxGateTests

    /// How a client comes to show locked session `s` (whose pane shows the marker).
    static let ways: [(name: String, command: String)] = [
        ("attach", "attach-session -t s"),
        ("attach -r", "attach-session -r -t s"),
        ("attach -d", "attach-session -d -t s"),
        ("new -A", "new-session -A -s s"),
        ("new -t (a grouped session)", "new-session -t s"),
        ("new -d, then attach", "attach-session -t d"),
    ]

    static func log(_ world: TestEnvironment) -> String { world.directory.appendingPathComponent("client.log").path }

    static func logged(_ world: TestEnvironment) -> String {
        (try? String(contentsOfFile: log(world), encoding: .isoLatin1)) ?? ""
    }

    @Test(arguments: 0..<Self.ways.count)
    func noByteOfALockedSessionReachesTheClient(way index: Int) throws {
        let (name, command) = Self.ways[index]
        let (world, tmux, _) = try T.lockedSession()
        defer { tmux.shutdown() }
        if name.hasPrefix("new -d") {
            // A session made without a client (scripts, tmux-resurrect), its own secret in its pane.
            try tmux.startInnerSession("d", command: "printf '\(T.marker)\\n'; exec /bin/sh")
            try gateEventually("the marker in the pane") { try tmux.innerPane("d").contains(T.marker) }
            try tmux.inner("kill-session", "-t", "s")
        }
        try tmux.runLoggedClient(command, log: Self.log(world))
        try T.waitForGate(tmux)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!Self.logged(world).contains(T.marker), "\(name): the session's content reached the client's terminal")
        // The log does see the session once it is unlocked.
        try tmux.typeLine(T.finger)
        try tmux.waitForScreen(containing: T.marker)
        try gateEventually("the marker in the log") { Self.logged(world).contains(T.marker) }
    }

    /// Ctrl-C held down while a client attaches (as fast as a flood of 1 kHz): it may end the
    /// client (the gate that replaces it has not ignored SIGINT yet), but nothing of the session
    /// reaches the terminal, attach after attach. tmux's own client lock unlocked at such a Ctrl-C.
    @Test func ctrlCHeldDownWhileAClientAttachesNeverShowsTheSession() throws {
        let (world, tmux, _) = try T.lockedSession(relaxed: true)
        defer { tmux.shutdown() }
        let flood = try CtrlCFlood(tmux, pane: "o")
        defer { flood.stop() }
        var gates = 0
        for attempt in 1...10 {
            try? FileManager.default.removeItem(atPath: Self.log(world))
            // The client starts half a second after its pane ignores Ctrl-C; the flood covers the
            // client's start and its first moments.
            try tmux.runLoggedClient("attach-session -t s", log: Self.log(world), delay: 0.5)
            try tmux.waitForScreen(containing: "CLIENT-WAITING")
            flood.start()
            Thread.sleep(forTimeInterval: 0.9)
            flood.pause()
            var screen = ""
            do {
                try gateEventually("attach \(attempt): the gate's cover, the client gone, or the session") {
                    screen = try tmux.screen()
                    return screen.contains(T.gateTitle) || screen.contains("CLIENT-EXITED") || screen.contains(T.marker)
                }
            } catch {
                throw TestFailure("\(error); the screen:\n\(screen)")
            }
            if screen.contains(T.gateTitle) { gates += 1 }
            Thread.sleep(forTimeInterval: 0.2)
            #expect(!Self.logged(world).contains(T.marker), "attach \(attempt): the session reached the client's terminal")
            #expect(!(try tmux.screen()).contains(T.marker), "attach \(attempt): the session shows")
        }
        // The keys did reach the terminal (a flood that never came would prove nothing), and the
        // gate did come whenever the client outlived the flood.
        #expect(flood.sent > 1000, "\(flood.sent) keys sent")
        #expect(gates > 0, "no attach of 10 reached the gate")
    }

    /// Clients that attach at the same moment: each one's hook comes after the others' (tmux runs
    /// hooks one after another), and none may be drawn while it waits, whatever the hooks before
    /// it run (a replaced client's detach is recorded by a process).
    @Test func clientsAttachingAtOnceDrawNothingOfTheSession() throws {
        let (world, tmux, _) = try T.lockedSession()
        defer { tmux.shutdown() }
        for round in 1...3 {
            let panes = (1...5).map { "r\(round)c\($0)" }
            let logs = panes.map { world.directory.appendingPathComponent("\($0).log").path }
            try tmux.runLoggedClientsAtOnce("attach-session -t s", panes: panes, logs: logs, delay: 0.3)
            for pane in panes { try tmux.waitForScreen(containing: T.gateTitle, pane: pane) }
            Thread.sleep(forTimeInterval: 0.3)
            for (pane, log) in zip(panes, logs) {
                let logged = (try? String(contentsOfFile: log, encoding: .isoLatin1)) ?? ""
                #expect(!logged.contains(T.marker), "round \(round), \(pane): the session's content reached the client's terminal")
                #expect(!(try tmux.screen(pane)).contains(T.marker), "round \(round), \(pane): the session shows")
            }
            for pane in panes { try tmux.killOuterPane(pane) }
        }
    }

    @Test func switchingToALockedSessionDrawsNothingOfIt() throws {
        let (world, tmux, _) = try T.lockedSession()
        defer { tmux.shutdown() }
        try tmux.runLoggedClient("new-session -s u -x 100 -y 30 'exec /bin/sh'", log: Self.log(world))
        try T.waitForGate(tmux)
        try tmux.typeLine(T.finger)
        try gateEventually("the gate gone") { try !tmux.screen().contains(T.gateTitle) }
        let client = try tmux.attachedClient()
        try tmux.inner("switch-client", "-c", client, "-t", "s")
        try T.waitForGate(tmux)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!Self.logged(world).contains(T.marker), "switch-client: the session's content reached the client's terminal")
        try tmux.typeLine(T.finger)
        try tmux.waitForScreen(containing: T.marker)
    }
}

/// Ctrl-C typed into an outer pane about once a millisecond while it runs, through a control-mode
/// client of the outer server (one process, its commands on standard input), on a thread of its own.
final class CtrlCFlood: @unchecked Sendable {
    private let control: RunningProcess
    private let pane: String
    private let lock = NSLock()
    private var running = false
    private var stopped = false
    private var count = 0
    private var thread: Thread?

    init(_ tmux: TmuxHarness, pane: String) throws {
        self.pane = pane
        try tmux.outer("new-session", "-d", "-s", "flood", "-x", "20", "-y", "5", "sleep 600")
        control = try RunningProcess(["/usr/bin/tmux", "-S", tmux.outerSocket, "-C", "attach-session", "-t", "flood"],
                                     environment: tmux.environment)
        let thread = Thread { [self] in loop() }
        self.thread = thread
        thread.start()
    }

    /// How many Ctrl-C were written.
    var sent: Int { lock.withLock { count } }

    func start() { lock.withLock { running = true } }
    func pause() { lock.withLock { running = false } }

    func stop() {
        lock.withLock { stopped = true }
        control.closeInput()
        _ = try? control.wait(timeout: 10)
    }

    private func loop() {
        while true {
            let (go, end) = lock.withLock { (running, stopped) }
            if end { return }
            if go {
                control.write("send-keys -t \(pane) C-c\n")
                lock.withLock { count += 1 }
            }
            usleep(1_000)
        }
    }
}
