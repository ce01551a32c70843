import Glibc
import TouchGateCore

extension InvocationContext {
    /// The session id when none is given: `TOUCHGATE_SESSION`, else the tmux session when inside
    /// tmux (``tmux``), else the controlling terminal's path.
    package func defaultSessionID(terminal: () -> String? = terminalName) -> String? {
        if let explicit = nonEmpty("TOUCHGATE_SESSION") { return explicit }
        if let id = tmux?.sessionID { return id }
        return terminal()
    }

    /// `session`, else ``defaultSessionID(terminal:)``, checked (``validSession(_:)``); a usage
    /// error when there is none.
    package func requireSession(_ session: String?) throws(UsageError) -> String {
        guard let id = session ?? defaultSessionID() else {
            throw UsageError("no session: pass --session ID or set TOUCHGATE_SESSION")
        }
        return try Self.validSession(id)
    }

    /// `id` when it may be a session id: 1 to 256 bytes, printable (no control character, no
    /// invalid UTF-8; ``TerminalText/isPrintable(_:)``); exit 65 otherwise. Every id is checked
    /// where it enters, since it is stored, logged and shown on the gate's cover.
    package static func validSession(_ id: String) throws(UsageError) -> String {
        guard !id.isEmpty, id.utf8.count <= 256, TerminalText.isPrintable(id) else {
            throw UsageError("invalid session id '\(id.escapedForMessage)'", exitCode: .badValue)
        }
        return id
    }

    /// The tmux server this runs inside, from `$TMUX`, or `nil` outside tmux.
    package var tmux: TmuxEnvironment? { self["TMUX"].flatMap(TmuxEnvironment.init) }

    /// Pane or gate: a gate for `session` that a tmux pane's shell runs (`TMUX_PANE` set, the
    /// session that of `$TMUX`) draws behind the session's clients, which are locked, so the
    /// client's own gate takes over from it.
    package func gateKind(for session: String) -> PromptClaimKind {
        self["TMUX_PANE"] != nil && tmux?.sessionID == session ? .tmuxPane : .gate
    }

    /// The sockets to reach the tmux server of session `id` (`tmux-<server pid>-$<n>`) through,
    /// best first: the one the store recorded for it, the one a lock-command named, `$TMUX`'s
    /// when it is that server's, then, with `searchingTmuxDirectory`, the account's sockets in
    /// tmux's own directory (``TmuxSocketDirectory``). Empty for an id that is not tmux's.
    package func tmuxSockets(for id: String, recorded: String?, named: String? = nil, searchingTmuxDirectory: Bool) -> [String] {
        guard let server = TmuxEnvironment.serverPID(ofSession: id) else { return [] }
        var sockets = [recorded, named, tmux.flatMap { $0.serverPID == server ? $0.socket : nil }].compactMap { $0 }
        if searchingTmuxDirectory {
            sockets += TmuxSocketDirectory.sockets(uid: geteuid(), tmuxTemporaryDirectory: self["TMUX_TMPDIR"])
        }
        var seen: Set<String> = []
        return sockets.filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}
