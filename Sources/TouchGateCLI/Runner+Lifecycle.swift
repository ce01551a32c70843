import Glibc
import TouchGate

extension Runner {
    /// The session id: `TOUCHGATE_SESSION`, else the tmux session when inside tmux, else the terminal's path.
    func defaultSessionID() -> String? {
        if let explicit = environment["TOUCHGATE_SESSION"], !explicit.isEmpty { return explicit }
        if let tmux = environment["TMUX"], let id = tmuxSessionID(tmux) { return id }
        return terminalName()
    }

    func relockPolicy(_ record: UserRecord, _ configuration: Configuration) -> SessionLifecycle.Policy {
        LifecycleEvents.policy(record, configuration)
    }

    /// The relock policy of user `name`, as `store` has it now.
    package func relockPolicy(store: Store, user name: String) throws -> SessionLifecycle.Policy {
        try LifecycleEvents(store: store, user: name, probe: probe).policy()
    }

    func requireSession(_ session: String?) throws -> String {
        guard let id = session ?? defaultSessionID() else {
            throw UsageError("no session: pass --session ID or set TOUCHGATE_SESSION")
        }
        return try validSession(id)
    }

    /// `id` when it may be a session id: 1 to 256 bytes, printable (no control character, no
    /// invalid UTF-8; ``TerminalText/isPrintable(_:)``); exit 65 otherwise. Every id is checked
    /// here where it enters, since it is stored, logged and shown on the gate's cover.
    func validSession(_ id: String) throws -> String {
        guard !id.isEmpty, id.utf8.count <= 256, TerminalText.isPrintable(id) else {
            throw UsageError("invalid session id '\(id.escapedForMessage)'", exitCode: .badValue)
        }
        return id
    }

    /// `touchgate event NAME`: records a lifecycle event; an event the state does not allow exits 65.
    func record(_ event: LifecycleEvent, session: String?) throws -> ExitCode {
        let id = try requireSession(session)
        let store = try openStore()
        let record = try LifecycleEvents(store: store, user: try user, probe: probe).record(event, session: id)
        emit(.object([
            ("session", .string(id)), ("event", .string(event.rawValue)),
            ("state", .string(record.lifecycle.state.rawValue)), ("locked", .bool(record.lifecycle.locked)),
        ]), text: nil)
        return .success
    }
}

/// `tmux-<server pid>-$<session id>` from `$TMUX` (`socket,pid,session`), matching the tmux
/// format `tmux-#{pid}-#{session_id}` that the snippet from `touchgate tmux-conf` uses.
func tmuxSessionID(_ value: String) -> String? {
    let parts = value.split(separator: ",", omittingEmptySubsequences: false)
    guard parts.count >= 3, let pid = Int(parts[1]), let session = Int(parts[2]) else { return nil }
    return "tmux-\(pid)-$\(session)"
}
