import TouchGateCore

/// What ``Store/sendAllToBackground(user:policy:now:)`` did to one session.
public struct BackgroundedSession: Equatable, Sendable {
    /// The session as it was written.
    public var record: SessionRecord
    /// The lifecycle events that were applied (an event the state did not allow is left out).
    public var events: [LifecycleEvent]
}

extension Store {
    /// Sends every session of `user` to the background and locks it, in ONE `BEGIN IMMEDIATE`
    /// transaction: a suspend or a screen lock is not a short trip away, so `grace-seconds` does
    /// not apply.
    ///
    /// Each session gets `will-resign-active` then `did-enter-background` where its state allows
    /// them (an event it does not allow is skipped, never forced), and is then locked while the
    /// lock is on (``SessionLifecycle/lock(policy:)``). A locked session stays locked. Either
    /// every session is marked or, when the store fails, none is.
    ///
    /// `cause` names what sent them away in the audit entries' policy ("screen-lock",
    /// "suspend"), so that a gate it interrupted can say so (``lastLifecycleEvent(session:)``).
    ///
    /// `only`: that session alone (`touchgate lock SESSION`), when it is the user's.
    public func sendAllToBackground(
        user: String, policy: SessionLifecycle.Policy, now: Double, cause: AuditPolicy = .event, only: String? = nil
    ) throws(StoreError) -> [BackgroundedSession] {
        try perform {
            try database.transaction(.immediate) {
                var done: [BackgroundedSession] = []
                let ids = try database.rows("SELECT id FROM sessions WHERE user = ? ORDER BY rowid", .text(user))
                    .compactMap { $0[0].string }.filter { only == nil || $0 == only }
                for id in ids {
                    guard var record = try readSession(id), record.lifecycle.state != .notRunning else { continue }
                    var applied: [LifecycleEvent] = []
                    for event in [LifecycleEvent.willResignActive, .didEnterBackground] {
                        guard record.lifecycle.handleIfAllowed(event, now: now, policy: policy) != nil else { continue }
                        applied.append(event)
                        try appendAudit(user: user, session: id, policy: cause, factor: .lifecycle, outcome: .event(event),
                                        prune: false)
                    }
                    record.lifecycle.lock(policy: policy)
                    try writeSession(record)
                    done.append(BackgroundedSession(record: record, events: applied))
                }
                try pruneAudit(user: user)
                return done
            }
        }
    }

    /// Brings the sessions `ids` of `user` that are still in the background back towards the
    /// foreground (`will-enter-foreground`), in one transaction. The event never unlocks: a
    /// session stays locked, and one away for `grace-seconds` or more is locked.
    public func bringToForeground(_ ids: [String], user: String, policy: SessionLifecycle.Policy, now: Double) throws(StoreError) -> [SessionRecord] {
        try perform {
            try database.transaction(.immediate) {
                var done: [SessionRecord] = []
                for id in ids {
                    guard var record = try readSession(id), record.user == user, record.lifecycle.state == .background,
                          record.lifecycle.handleIfAllowed(.willEnterForeground, now: now, policy: policy) != nil else { continue }
                    try appendAudit(user: user, session: id, policy: .event, factor: .lifecycle,
                                    outcome: .event(.willEnterForeground), prune: false)
                    try writeSession(record)
                    done.append(record)
                }
                try pruneAudit(user: user)
                return done
            }
        }
    }

    /// Records that session `id` lives in the tmux server listening on `socket` (from `$TMUX`),
    /// if the store knows the session.
    public func recordTmuxSocket(_ socket: String, session id: String) throws(StoreError) {
        try perform {
            try database.run("UPDATE sessions SET tmux_socket = ? WHERE id = ? AND tmux_socket IS NOT ?",
                             .text(socket), .text(id), .text(socket))
        }
    }

    /// The latest lifecycle event recorded for session `id` and what sent it (the audit entry's
    /// policy: "event" for `touchgate event`, "screen-lock" or "suspend" for the watcher).
    public func lastLifecycleEvent(session id: String) throws(StoreError) -> (event: String, cause: String?)? {
        try perform {
            guard let row = try database.rows("""
                SELECT outcome, policy FROM audit WHERE session = ? AND factor = 'lifecycle' ORDER BY id DESC LIMIT 1
                """, .text(id)).first, let event = row[0].string else { return nil }
            return (event, row[1].string)
        }
    }
}
