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

    @Test func switchingToALockedSessionDrawsNothingOfIt() throws {
        let (world, tmux, _) = try T.lockedSession()
        defer { tmux.shutdown() }
        try tmux.runLoggedClient("new-session -s u -x 100 -y 30 'exec /bin/sh'", log: Self.log(world))
        try T.waitForGate(tmux)
        try tmux.typeLine(T.finger)
        try gateEventually("the gate gone") { try !tmux.screen().contains(T.gateTitle) }
        let client = try tmux.inner("list-clients", "-F", "#{client_name}").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try tmux.inner("switch-client", "-c", client, "-t", "s")
        try T.waitForGate(tmux)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!Self.logged(world).contains(T.marker), "switch-client: the session's content reached the client's terminal")
        try tmux.typeLine(T.finger)
        try tmux.waitForScreen(containing: T.marker)
    }
}
