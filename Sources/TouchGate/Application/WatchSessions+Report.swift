import TouchGateCore

extension WatchSessions.Report {
    /// `touchgate --json lock`'s object: the sessions locked, the owners that confirmed their
    /// cover and those that did not, the tmux sockets locked.
    package var jsonValue: JSONValue {
        .object([
            ("sessions", .array(sessions.map { record in
                .object([("session", .string(record.id)), ("state", .string(record.lifecycle.state.rawValue)),
                         ("locked", .bool(record.lifecycle.locked))])
            })),
            ("owners", .array(owners.confirmed.map { .int(Int($0.pid)) })),
            ("unconfirmedOwners", .array(owners.notConfirmed.map { .int(Int($0.pid)) })),
            ("tmuxSockets", .array(tmuxSockets.map { .string($0) })),
        ])
    }

    /// `touchgate lock`'s lines: what was locked and covered.
    package var text: String {
        "locked \(sessions.count) session(s)" + (sessions.isEmpty ? "" : ": " + sessions.map(\.id).joined(separator: ", "))
            + "\ncovered \(owners.confirmed.count) touchgate shell terminal(s); locked \(tmuxSockets.count) tmux server(s)"
    }
}
