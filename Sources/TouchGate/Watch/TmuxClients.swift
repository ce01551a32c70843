import TouchGateSystem

/// Which session each client of a tmux server shows now, as the server itself says.
///
/// The hooks' records run in the background (tmux must not wait for a process), so two of them
/// can reach the store in another order than tmux fired them: a replaced client's detach after
/// the attach of the client that came back in its place, on the same terminal and so under the
/// same name. A record looks at the present first (``TmuxHookEvents``).
package struct TmuxClients: Equatable, Sendable {
    /// The tmux session id (`$<n>`) each client (by name) shows.
    package let sessions: [String: String]

    package init(sessions: [String: String]) {
        self.sessions = sessions
    }

    /// The format ``ask(socket:)`` lists the clients with: session id first (it holds no space).
    static let format = "#{session_id} #{client_name}"

    /// Reads `list-clients -F` with ``format``: one client a line; a line without a session is skipped.
    package init(listing: String) {
        var sessions: [String: String] = [:]
        for line in listing.split(separator: "\n") {
            guard let space = line.firstIndex(of: " "), line.hasPrefix("$") else { continue }
            sessions[String(line[line.index(after: space)...])] = String(line[..<space])
        }
        self.sessions = sessions
    }

    /// Asks the server on `socket` (it has 2 s); `nil` when it cannot be asked.
    package static func ask(socket: String) -> TmuxClients? {
        guard let output = try? ChildProcess.runCapturingOutput(
            ["tmux", "-S", socket, "list-clients", "-F", format], searchPath: true, until: .after(seconds: 2)),
            output.termination == .exited(0), !output.timedOut else { return nil }
        return TmuxClients(listing: output.text)
    }
}
