import TouchGateCore
import TouchGateStore

/// What the watcher and `touchgate lock` do outside the store when they send sessions away: the
/// terminal owners and the tmux servers, I/O that ``WatchSessions`` orders but does not do.
package protocol WatchEffects {
    /// Has every running `touchgate shell` of the user (or only those holding session `id`) look
    /// at its session now and cover its terminal; returns when each answered or its time ran out.
    func coverShellOwners(session id: String?) -> OwnerChannel.LockResult
    /// Locks the clients of the tmux servers on `recorded` (the sockets the store has for the
    /// sessions) and of every other server of the account; returns the sockets, once done.
    func lockTmuxServers(recorded: [String]) -> [String]
    /// Locks the clients of tmux session `id` on the server at `socket`; returns whether it was sent.
    func lockTmuxSession(_ id: String, socket: String) -> Bool
}

/// The use case of `touchgate watch` and `touchgate lock`: every session of the user (or one) to
/// the background and locked when the machine is about to sleep, the screen locks or the user
/// says so, and those sessions back towards the foreground (still locked) when it wakes or unlocks.
///
/// The decisions of when are TouchGateWatch's `WatchStateMachine`'s and the bus is the watcher's; this is what
/// happens to the sessions, by the store's clock, with prompts ended through the ``ProcessProbe``.
package final class WatchSessions {
    package let events: LifecycleEvents
    package let effects: any WatchEffects
    /// The sessions this watcher sent to the background: the ones a resume or Unlock brings back.
    package private(set) var backgrounded: [String] = []

    package init(events: LifecycleEvents, effects: any WatchEffects) {
        self.events = events
        self.effects = effects
    }

    /// What sent the sessions away, as the audit log names it (and a gate it interrupted says).
    package enum Cause: String, Sendable {
        case screenLock = "screen-lock"
        case suspend
        /// `touchgate lock`.
        case lockCommand = "lock"

        /// The audit log's policy for it.
        var auditPolicy: AuditPolicy {
            switch self {
            case .screenLock: .screenLock
            case .suspend: .suspend
            case .lockCommand: .lock
            }
        }
    }

    /// What ``sendAllToBackground(cause:session:)`` did.
    package struct Report: Sendable {
        /// The sessions marked, as written.
        package var sessions: [SessionRecord] = []
        /// The owners told to look, and how they answered.
        package var owners = OwnerChannel.LockResult()
        /// The tmux sockets locked (`lock-server`, or `lock-session` for one session).
        package var tmuxSockets: [String] = []
    }

    /// Every session of the user (or only session `id`) to the background and locked in one
    /// transaction, then a waiting evaluation's prompt owner signalled (it ends with appCancel),
    /// then the terminal owners and every tmux server (for one session: its owners and its tmux
    /// session) told to lock. Returns only when all of that is done.
    ///
    /// When the store fails nothing is marked (one transaction); what can be covered still is,
    /// and the error is thrown.
    @discardableResult
    package func sendAllToBackground(cause: Cause, session id: String? = nil) throws -> Report {
        let store = events.store
        var report = Report()
        let done: [BackgroundedSession]
        do {
            done = try store.sendAllToBackground(user: events.user, policy: try events.policy(),
                                                 now: store.clock.now, cause: cause.auditPolicy, only: id)
        } catch {
            if id == nil {
                _ = effects.lockTmuxServers(recorded: (try? store.sessions(user: events.user))?.compactMap(\.tmuxSocket) ?? [])
            }
            // An owner that cannot read the store covers its terminal all the same (fail closed).
            _ = effects.coverShellOwners(session: id)
            throw error
        }
        for session in done { events.cancelPendingPrompt(of: session.record) }
        report.sessions = done.map(\.record)
        report.owners = effects.coverShellOwners(session: id)
        if id == nil {
            report.tmuxSockets = effects.lockTmuxServers(recorded: done.compactMap(\.record.tmuxSocket))
        } else {
            for record in report.sessions {
                if let socket = record.tmuxSocket, effects.lockTmuxSession(record.id, socket: socket) { report.tmuxSockets.append(socket) }
            }
        }
        for session in done where session.events.contains(.didEnterBackground) && !backgrounded.contains(session.record.id) {
            backgrounded.append(session.record.id)
        }
        return report
    }

    /// The sessions ``sendAllToBackground(cause:session:)`` sent away, back towards the foreground
    /// (`will-enter-foreground`): never unlocked, and locked when away for `grace-seconds`.
    ///
    /// First every owner is told to look at its session again (``WatchEffects/coverShellOwners(session:)``):
    /// one that did not confirm its cover at the suspend (stuck, unreachable) is covered now,
    /// before the sessions come back.
    package func bringAllToForeground() throws {
        guard !backgrounded.isEmpty else { return }
        _ = effects.coverShellOwners(session: nil)
        let store = events.store
        _ = try store.bringToForeground(backgrounded, user: events.user, policy: try events.policy(), now: store.clock.now)
        backgrounded = []
    }
}
