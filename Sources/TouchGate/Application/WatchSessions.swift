/// What the watcher does outside the store when it sends sessions away: the terminal owners
/// and the tmux servers, I/O that ``WatchSessions`` orders but does not do.
public protocol WatchEffects {
    /// Has every running `touchgate shell` of the user look at its session now and cover its
    /// terminal; returns when each answered or its time ran out.
    func coverShellOwners()
    /// Locks the clients of the tmux servers on `recorded` (the sockets the store has for the
    /// sessions) and of every other server of the account; returns when that is done.
    func lockTmuxServers(recorded: [String])
}

/// The use case of `touchgate watch`: every session of the user to the background and locked
/// when the machine is about to sleep or the screen locks, and those sessions back towards the
/// foreground (still locked) when it wakes or unlocks.
///
/// The decisions of when are ``WatchStateMachine``'s and the bus is the watcher's; this is what
/// happens to the sessions, by the store's clock, with prompts ended through the ``ProcessProbe``.
public final class WatchSessions {
    public let events: LifecycleEvents
    public let effects: any WatchEffects
    /// The sessions this watcher sent to the background: the ones a resume or Unlock brings back.
    public private(set) var backgrounded: [String] = []

    public init(events: LifecycleEvents, effects: any WatchEffects) {
        self.events = events
        self.effects = effects
    }

    /// What sent the sessions away, as the audit log names it (and a gate it interrupted says).
    public enum Cause: String, Sendable {
        case screenLock = "screen-lock"
        case suspend

        /// The audit log's policy for it.
        var auditPolicy: AuditPolicy {
            switch self {
            case .screenLock: .screenLock
            case .suspend: .suspend
            }
        }
    }

    /// Every session of the user to the background and locked in one transaction, then a
    /// waiting evaluation's prompt owner signalled (it ends with appCancel), then the terminal
    /// owners and every tmux server told to lock. Returns only when all of that is done.
    ///
    /// When the store fails nothing is marked (one transaction); what can be covered still is,
    /// and the error is thrown.
    public func sendAllToBackground(cause: Cause) throws {
        let store = events.store
        let done: [BackgroundedSession]
        do {
            done = try store.sendAllToBackground(user: events.user, policy: try events.policy(),
                                                 now: store.clock.now, cause: cause.auditPolicy)
        } catch {
            effects.lockTmuxServers(recorded: (try? store.sessions(user: events.user))?.compactMap(\.tmuxSocket) ?? [])
            // An owner that cannot read the store covers its terminal all the same (fail closed).
            effects.coverShellOwners()
            throw error
        }
        for session in done { events.cancelPendingPrompt(of: session.record) }
        effects.coverShellOwners()
        effects.lockTmuxServers(recorded: done.compactMap(\.record.tmuxSocket))
        for session in done where session.events.contains(.didEnterBackground) && !backgrounded.contains(session.record.id) {
            backgrounded.append(session.record.id)
        }
    }

    /// The sessions ``sendAllToBackground(cause:)`` sent away, back towards the foreground
    /// (`will-enter-foreground`): never unlocked, and locked when away for `grace-seconds`.
    ///
    /// First every owner is told to look at its session again (``WatchEffects/coverShellOwners()``):
    /// one that did not confirm its cover at the suspend (stuck, unreachable) is covered now,
    /// before the sessions come back.
    public func bringAllToForeground() throws {
        guard !backgrounded.isEmpty else { return }
        effects.coverShellOwners()
        let store = events.store
        _ = try store.bringToForeground(backgrounded, user: events.user, policy: try events.policy(), now: store.clock.now)
        backgrounded = []
    }
}
