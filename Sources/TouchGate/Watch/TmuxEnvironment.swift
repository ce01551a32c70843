/// `$TMUX` inside a tmux pane: `SOCKET,PID,SESSION`, the server's socket, its pid and the
/// session's number; the session id touchgate gives it is `tmux-<pid>-$<session>`, as the
/// `touchgate tmux-conf` snippet spells it (`tmux-#{pid}-#{session_id}`).
package struct TmuxEnvironment: Equatable, Sendable {
    package var socket: String
    package var serverPID: String
    package var session: Int

    /// `nil` unless `value` has a socket, a pid and a session number.
    package init?(_ value: String) {
        let parts = value.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count >= 3, let pid = Int(parts[1]), let session = Int(parts[2]) else { return nil }
        (socket, serverPID, self.session) = (String(parts[0]), String(pid), session)
    }

    /// `tmux-<server pid>-$<session>`.
    package var sessionID: String { "tmux-\(serverPID)-$\(session)" }

    /// The server pid a tmux session id names (`tmux-<pid>-$<n>`), or `nil` for another id.
    package static func serverPID(ofSession id: String) -> String? {
        guard id.hasPrefix("tmux-"), id.contains("$") else { return nil }
        let pid = id.dropFirst("tmux-".count).prefix { $0.isNumber }
        return pid.isEmpty ? nil : String(pid)
    }

    /// The tmux target of a session id (`$<n>`), or `nil` for another id.
    package static func target(ofSession id: String) -> String? {
        guard id.hasPrefix("tmux-"), let dollar = id.lastIndex(of: "$") else { return nil }
        return String(id[dollar...])
    }
}
