import Glibc
import TouchGateCore
import TouchGateSystem

/// One terminal session's stored lifecycle.
public struct SessionRecord: Equatable, Sendable {
    public var id: String
    public var user: String
    public var lifecycle: SessionLifecycle
    /// The process prompting for this session right now, if it is still alive (the same pid
    /// and start time as when it claimed the prompt).
    public var promptOwner: ProcessIdentity?
    public var promptKind: String?
    /// The socket of the tmux server the session lives in, when it is a tmux session.
    public var tmuxSocket: String? = nil
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

    func readSession(_ id: String) throws -> SessionRecord? {
        guard let row = try database.rows("""
            SELECT user, state, locked, background_since, prompt_pid, prompt_kind, prompt_start, tmux_socket FROM sessions WHERE id = ?
            """, .text(id)).first else { return nil }
        // An unknown state text means a damaged row: treat it as locked rather than guess.
        let state = row[1].string.flatMap(LifecycleState.init(rawValue:))
        let lifecycle = SessionLifecycle(
            state: state ?? .inactive, locked: state == nil || row[2].int != 0, backgroundSince: row[3].double)
        // A claim counts only while its process runs: the same pid with the same start time. A
        // claim without a start time (an older touchgate's) names no process for sure.
        var owner: ProcessIdentity?
        if let pid = row[4].int, let start = row[6].int, start >= 0 {
            let claimed = ProcessIdentity(pid: Int32(truncatingIfNeeded: pid), startTime: UInt64(start))
            if claimed.isAlive { owner = claimed }
        }
        return SessionRecord(id: id, user: row[0].string ?? "", lifecycle: lifecycle,
                             promptOwner: owner, promptKind: owner == nil ? nil : row[5].string, tmuxSocket: row[7].string)
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
                    try appendAudit(user: user, session: id, policy: .event, factor: .lifecycle, outcome: .event(event))
                }
                try writeSession(record)
                try pruneSessions(keeping: record.id)
                return result
            }
        } catch let error as DatabaseError {
            // The body's own errors (an invalid transition) pass through; only the file's become StoreErrors.
            throw StoreError(path: path, error)
        }
    }

    /// Writes `record` (inside the caller's transaction).
    func writeSession(_ record: SessionRecord) throws {
        try database.run("""
            INSERT INTO sessions (id, user, state, locked, background_since, prompt_pid, prompt_kind, prompt_start, tmux_socket, updated)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET user = excluded.user, state = excluded.state,
                locked = excluded.locked, background_since = excluded.background_since,
                prompt_pid = excluded.prompt_pid, prompt_kind = excluded.prompt_kind,
                prompt_start = excluded.prompt_start, tmux_socket = excluded.tmux_socket, updated = excluded.updated
            """, .text(record.id), .text(record.user), .text(record.lifecycle.state.rawValue),
            DatabaseValue(record.lifecycle.locked), DatabaseValue(record.lifecycle.backgroundSince),
            record.promptOwner.map { DatabaseValue.integer(Int64($0.pid)) } ?? .null,
            DatabaseValue(record.promptKind),
            record.promptOwner.map { DatabaseValue.integer(Int64(bitPattern: $0.startTime)) } ?? .null,
            DatabaseValue(record.tmuxSocket), .real(clock.now))
    }

    /// Records process `pid` (with its start time) as the one prompting for `session`, unless
    /// another live process already is.
    ///
    /// Returns the pid of the live owner that holds the session, or `nil` when `pid` now owns
    /// it. A dead owner's claim, or one whose pid now names another process (a different start
    /// time), is cleared here. A process that cannot be named (gone from `/proc`) claims nothing.
    public func claimPrompt(session: String, user: String, pid: Int32, kind: String) throws -> Int32? {
        switch try claimPrompt(session: session, user: user, pid: pid, kind: kind, takingOver: { _, _ in false }) {
        case .heldBy(let owner): owner.pid
        case .claimed, .tookOver(_): nil
        }
    }

    /// Claims `session`'s prompt for process `pid` as ``claimPrompt(session:user:pid:kind:)``
    /// does, but takes it from a live owner when `takingOver(owner, ownerKind)` says so (one
    /// the user cannot reach, or the user asked to): the claim is this process's from then on,
    /// and the caller ends the old owner's prompt (SIGUSR1).
    public func claimPrompt(
        session: String, user: String, pid: Int32, kind: String, takingOver: (ProcessIdentity, String?) -> Bool
    ) throws -> PromptClaim {
        let claimant = ProcessIdentity.of(pid)
        return try updateSession(session, user: user) { record in
            var previous: ProcessIdentity?
            if let owner = record.promptOwner, owner != claimant {
                guard takingOver(owner, record.promptKind) else { return .heldBy(owner) }
                previous = owner
            }
            record.promptOwner = claimant
            record.promptKind = claimant == nil ? nil : kind
            return previous.map { .tookOver($0) } ?? .claimed
        }
    }

    /// Gives up `pid`'s claim on `session`'s prompt.
    public func releasePrompt(session: String, pid: Int32) throws(StoreError) {
        guard let owner = ProcessIdentity.of(pid) else { return }
        try perform {
            try database.run("""
                UPDATE sessions SET prompt_pid = NULL, prompt_kind = NULL, prompt_start = NULL
                WHERE id = ? AND prompt_pid = ? AND prompt_start = ?
                """, .text(session), .integer(Int64(owner.pid)), .integer(Int64(bitPattern: owner.startTime)))
        }
    }
}

extension Store {
    /// Remembers that tmux client `client` now shows `session`, and forgets clients not seen for
    /// ``sessionRetentionSeconds`` (a tmux server that was killed never reports their detach).
    public func attachClient(_ client: String, to session: String) throws(StoreError) {
        try perform {
            try database.transaction(.immediate) {
                try database.run("""
                    INSERT INTO tmux_clients (client, session, updated) VALUES (?, ?, ?)
                    ON CONFLICT (client) DO UPDATE SET session = excluded.session, updated = excluded.updated
                    """, .text(client), .text(session), .real(clock.now))
                try database.run("DELETE FROM tmux_clients WHERE updated < ?", .real(clock.now - Self.sessionRetentionSeconds))
            }
        }
    }

    /// The session tmux client `client` shows as the store knows it, if known.
    public func tmuxClientSession(_ client: String) throws(StoreError) -> String? {
        try perform { try database.scalar("SELECT session FROM tmux_clients WHERE client = ?", .text(client))?.string }
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
