/// The tmux hooks `touchgate tmux-conf` installs, each mapped to lifecycle events.
package enum TmuxHook: String, Sendable, CaseIterable {
    case sessionCreated = "session-created"
    /// A client was given a session: attach, new-session, switch-client.
    case clientSessionChanged = "client-session-changed"
    case clientDetached = "client-detached"
    case clientFocusIn = "client-focus-in"
    case clientFocusOut = "client-focus-out"
    /// The snippet itself was sourced (at the server's start, or later with `tmux source-file`):
    /// the sessions that exist now (`#{S:#{session_id} }`) are recorded with the server's socket,
    /// so `touchgate watch` finds this server wherever its socket is.
    case sourced
}

/// The use case of tmux's hooks (`touchgate tmux-hook`): the lifecycle events of the sessions a
/// client leaves and enters. The lock itself is taken by the hook inside tmux, before this runs.
///
/// Hooks fire in orders iOS never produces (a detach straight from active): an event the state
/// does not allow is skipped, never forced (``LifecycleEvents/applyAllowed(_:session:)``), so no
/// hook can unlock anything.
///
/// The records run in the background, so they can arrive in another order than tmux fired them.
/// A record about a client therefore looks at what the server says now (`ask`): an attach
/// the client no longer shows is not recorded, and a detach is not applied to the attach of a
/// client that came back under the same name (a replaced client let in again).
package struct TmuxHookEvents {
    package let events: LifecycleEvents
    /// The tmux server's pid (the second field of `$TMUX`): it names the sessions.
    package let server: String?
    /// The server's socket (the first field of `$TMUX`, when absolute): what `touchgate watch`
    /// locks the clients through.
    package let socket: String?
    /// Asks the server on a socket for its clients now (``TmuxClients/ask(socket:)``); `nil`
    /// when it cannot say: then each record is applied as it comes.
    package let ask: @Sendable (String) -> TmuxClients?

    package init(events: LifecycleEvents, server: String?, socket: String?,
                 ask: @escaping @Sendable (String) -> TmuxClients? = { _ in nil }) {
        self.events = events
        self.server = server
        self.socket = socket.flatMap { $0.hasPrefix("/") ? $0 : nil }
        self.ask = ask
    }

    /// The server's clients now, when it can be asked (it has a socket and answers).
    private func present() -> TmuxClients? { socket.flatMap(ask) }

    /// False when the server says `client` does not show `tmuxSession` now: a record that
    /// arrived after the client moved on, or left.
    private func stillShows(_ client: String, _ tmuxSession: String) -> Bool {
        guard let present = present() else { return true }
        return present.sessions[client] == tmuxSession
    }

    /// The touchgate session id of tmux session `tmuxID` (`$3`) on this server.
    package func sessionID(_ tmuxID: String) -> String { "tmux-\(server ?? "0")-\(tmuxID)" }

    /// Carries out `hook` for `client`; `tmuxSession` is the hook's session (`#{session_id}`),
    /// which session-created and client-session-changed need (the caller checks it is there).
    package func handle(_ hook: TmuxHook, client: String, session tmuxSession: String?) throws {
        let store = events.store
        switch hook {
        case .sessionCreated:
            guard let tmuxSession else { return }
            let id = sessionID(tmuxSession)
            try events.applyAllowed([.didFinishLaunching, .didBecomeActive], session: id)
            if let socket { try store.recordTmuxSocket(socket, session: id) }
            if !client.isEmpty, stillShows(client, tmuxSession) { try store.attachClient(client, to: id) }
        case .clientSessionChanged:
            guard let tmuxSession, stillShows(client, tmuxSession) else { return }
            let id = sessionID(tmuxSession)
            // A session the store never saw (it began before the snippet was loaded): launched
            // now, as session-created would have (locked while the lock is on), with its socket.
            if try store.session(id) == nil { try events.applyAllowed([.didFinishLaunching, .didBecomeActive], session: id) }
            let previous = try store.detachClient(client)
            try store.attachClient(client, to: id)
            if let socket { try store.recordTmuxSocket(socket, session: id) }
            guard previous != id else { break }
            // Switching away sends the session left behind to the background, as a detach does.
            if let previous { try events.applyAllowed([.willResignActive, .didEnterBackground], session: previous) }
            try events.applyAllowed([.willEnterForeground], session: id)
        case .clientDetached:
            // A client of that name shows a session now, and the store has its attach already:
            // this detach is of the client it replaced.
            if let now = present()?.sessions[client], try store.tmuxClientSession(client) == sessionID(now) { return }
            if let id = try store.detachClient(client) {
                try events.applyAllowed([.willResignActive, .didEnterBackground], session: id)
            }
        case .clientFocusIn:
            if let tmuxSession { try events.applyAllowed([.didBecomeActive], session: sessionID(tmuxSession)) }
        case .clientFocusOut:
            if let tmuxSession { try events.applyAllowed([.willResignActive], session: sessionID(tmuxSession)) }
        case .sourced:
            // A session the store never saw is launched now, as client-session-changed would
            // launch it (locked while the lock is on); each gets the socket.
            for tmuxID in (tmuxSession ?? "").split(separator: " ").map(String.init) where tmuxID.hasPrefix("$") {
                let id = sessionID(tmuxID)
                if try store.session(id) == nil { try events.applyAllowed([.didFinishLaunching, .didBecomeActive], session: id) }
                if let socket { try store.recordTmuxSocket(socket, session: id) }
            }
        }
    }
}
