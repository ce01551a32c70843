import Glibc

/// One terminal session's stored lifecycle.
public struct SessionRecord: Equatable, Sendable {
    public var id: String
    public var user: String
    public var lifecycle: SessionLifecycle
    /// The process prompting for this session right now, if it is still alive.
    public var promptOwner: Int32?
    public var promptKind: String?
}

extension Store {
    /// The session `id`, or `nil` when no event was ever recorded for it.
    public func session(_ id: String) throws(StoreError) -> SessionRecord? {
        try perform { try readSession(id) }
    }

    /// Every session of `user`, oldest first.
    public func sessions(user: String) throws(StoreError) -> [SessionRecord] {
        try perform {
            try database.rows("SELECT id FROM sessions WHERE user = ? ORDER BY rowid", .text(user))
                .compactMap { row in try row[0].string.flatMap(readSession) }
        }
    }

    private func readSession(_ id: String) throws -> SessionRecord? {
        guard let row = try database.rows("""
            SELECT user, state, locked, background_since, prompt_pid, prompt_kind FROM sessions WHERE id = ?
            """, .text(id)).first else { return nil }
        // An unknown state text means a damaged row: treat it as locked rather than guess.
        let state = row[1].string.flatMap(LifecycleState.init(rawValue:))
        let lifecycle = SessionLifecycle(
            state: state ?? .inactive, locked: state == nil || row[2].int != 0, backgroundSince: row[3].double)
        let owner = row[4].int.map { Int32(truncatingIfNeeded: $0) }
        return SessionRecord(id: id, user: row[0].string ?? "", lifecycle: lifecycle,
                             promptOwner: owner.flatMap { processIsAlive($0) ? $0 : nil }, promptKind: row[5].string)
    }

    /// Reads, changes and writes one session in a single `BEGIN IMMEDIATE` transaction.
    ///
    /// A session never seen starts as `notRunning` and unlocked. With `event`, the audit log gets
    /// the event (policy `event`, factor `lifecycle`) in the same transaction: the change and its
    /// entry are committed together, with one sync instead of two.
    public func updateSession<Result>(
        _ id: String, user: String, recording event: LifecycleEvent? = nil, _ body: (inout SessionRecord) throws -> Result
    ) throws -> Result {
        do {
            return try database.transaction(.immediate) {
                var record = try readSession(id)
                    ?? SessionRecord(id: id, user: user, lifecycle: SessionLifecycle(), promptOwner: nil, promptKind: nil)
                let result = try body(&record)
                if let event {
                    try appendAudit(user: user, session: id, policy: "event", factor: "lifecycle",
                                    outcome: event.rawValue, code: 0)
                }
                try database.run("""
                    INSERT INTO sessions (id, user, state, locked, background_since, prompt_pid, prompt_kind, updated)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET user = excluded.user, state = excluded.state,
                        locked = excluded.locked, background_since = excluded.background_since,
                        prompt_pid = excluded.prompt_pid, prompt_kind = excluded.prompt_kind, updated = excluded.updated
                    """, .text(record.id), .text(record.user), .text(record.lifecycle.state.rawValue),
                    DatabaseValue(record.lifecycle.locked), DatabaseValue(record.lifecycle.backgroundSince),
                    record.promptOwner.map { DatabaseValue.integer(Int64($0)) } ?? .null,
                    DatabaseValue(record.promptKind), .real(clock.now))
                return result
            }
        } catch let error as DatabaseError {
            // The body's own errors (an invalid transition) pass through; only the file's become StoreErrors.
            throw StoreError(path: path, error)
        }
    }

    /// Records `pid` as the process prompting for `session`, unless another live process already is.
    ///
    /// Returns the live owner that holds the session, or `nil` when `pid` now owns it. A dead
    /// owner's claim is cleaned up here.
    public func claimPrompt(session: String, user: String, pid: Int32, kind: String) throws -> Int32? {
        try updateSession(session, user: user) { record in
            if let owner = record.promptOwner, owner != pid { return owner }
            record.promptOwner = pid
            record.promptKind = kind
            return nil
        }
    }

    /// Gives up `pid`'s claim on `session`'s prompt.
    public func releasePrompt(session: String, pid: Int32) throws(StoreError) {
        try perform {
            try database.run("UPDATE sessions SET prompt_pid = NULL, prompt_kind = NULL WHERE id = ? AND prompt_pid = ?",
                             .text(session), .integer(Int64(pid)))
        }
    }
}

/// True when a process with this id exists (even one we may not signal).
///
/// The corresponding C function is `kill` with signal 0.
func processIsAlive(_ pid: Int32) -> Bool {
    guard pid > 0 else { return false }
    return kill(pid, 0) == 0 || errno == EPERM
}

extension Store {
    /// Remembers that tmux client `client` now shows `session`.
    public func attachClient(_ client: String, to session: String) throws(StoreError) {
        try perform {
            try database.run("""
                INSERT INTO tmux_clients (client, session, updated) VALUES (?, ?, ?)
                ON CONFLICT (client) DO UPDATE SET session = excluded.session, updated = excluded.updated
                """, .text(client), .text(session), .real(clock.now))
        }
    }

    /// Forgets tmux client `client` and returns the session it showed, if known.
    public func detachClient(_ client: String) throws(StoreError) -> String? {
        try perform {
            try database.transaction(.immediate) {
                let session = try database.scalar("SELECT session FROM tmux_clients WHERE client = ?", .text(client))?.string
                try database.run("DELETE FROM tmux_clients WHERE client = ?", .text(client))
                return session
            }
        }
    }
}
