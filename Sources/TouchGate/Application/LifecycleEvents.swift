import Glibc
import TouchGateCore
import TouchGateStore

/// The use case of lifecycle events (`touchgate event`, the tmux hooks, `touchgate shell`):
/// applies an event to a session in one transaction, by the user's relock policy and the store's
/// clock, and carries out what the transition asks for.
///
/// A `did-enter-background` ends the evaluation another process is waiting in for the session
/// (appCancel); ``record(_:session:)`` also has a `touchgate shell` holding a session that is
/// now locked or away look at it at once. Time is the store's ``Store/clock`` (one clock for
/// every decision), processes are the injected ``ProcessProbe``.
package struct LifecycleEvents {
    package let store: Store
    package let user: String
    package let probe: any ProcessProbe

    package init(store: Store, user: String, probe: any ProcessProbe = SystemProcessProbe()) {
        self.store = store
        self.user = user
        self.probe = probe
    }

    /// The relock policy of `record` under `configuration`.
    package static func policy(_ record: UserRecord, _ configuration: Configuration) -> SessionLifecycle.Policy {
        SessionLifecycle.Policy(enabled: record.enabled, graceSeconds: configuration.graceSeconds)
    }

    /// The user's relock policy, as the store has it now.
    package func policy() throws -> SessionLifecycle.Policy {
        Self.policy(try store.user(user), try store.configuration(user: user))
    }

    /// Applies `event` to session `id` and carries out its action; throws
    /// ``SessionLifecycle/InvalidTransition`` (nothing written) when the state does not allow it.
    @discardableResult
    package func apply(_ event: LifecycleEvent, session id: String) throws -> SessionRecord {
        let policy = try policy()
        let now = store.clock.now
        let (action, record) = try store.updateSession(id, user: user, recording: event) { record in
            switch record.lifecycle.handle(event, now: now, policy: policy) {
            case .refused(let refusal): throw refusal
            case let action: (action, record)
            }
        }
        if action == .cancelPendingPrompt { cancelPendingPrompt(of: record) }
        return record
    }

    /// Applies each of `events` to session `id` in order, each in its own transaction, skipping
    /// one the state does not allow (``SessionLifecycle/handleIfAllowed(_:now:policy:)``): for
    /// sources that send events in orders iOS never produces, such as tmux's hooks.
    package func applyAllowed(_ events: [LifecycleEvent], session id: String) throws {
        let policy = try policy()
        for event in events {
            let now = store.clock.now
            let done: (SessionLifecycle.Action, SessionRecord)?
            do {
                done = try store.updateSession(id, user: user, recording: event) { record in
                    // A skipped event writes nothing and records nothing: the transaction is undone.
                    guard let action = record.lifecycle.handleIfAllowed(event, now: now, policy: policy) else { throw Skipped() }
                    return (action, record)
                }
            } catch is Skipped {
                done = nil
            }
            if let (action, record) = done, action == .cancelPendingPrompt { cancelPendingPrompt(of: record) }
        }
    }

    /// `touchgate event NAME`: ``apply(_:session:)``, then every `touchgate shell` holding the
    /// session (but this process) looks at it before this returns, when it is now locked or in
    /// the background. (The owner's look at an unlocked session marks it visible again, which
    /// would undo a will-resign-active.)
    @discardableResult
    package func record(_ event: LifecycleEvent, session id: String) throws -> SessionRecord {
        let record = try apply(event, session: id)
        guard record.lifecycle.locked || record.lifecycle.state == .background else { return record }
        let me = probe.current?.pid ?? getpid()
        let owners = (try? store.shellOwners(session: id))?.map(\.owner).filter { $0.pid != me } ?? []
        guard !owners.isEmpty else { return record }
        // Only the owners themselves confirm (the listener's credentials are checked); one that
        // could not be reached or did not answer is signalled to look all the same.
        for owner in OwnerChannel.lock(owners, timeout: Self.ownerTimeout).notConfirmed { OwnerChannel.nudge(owner) }
        return record
    }

    /// Every session of the user as a return now would find it (for `status`): one in the
    /// background past the grace is shown locked. Nothing is written.
    package func sessionsAsReturningNow(policy: SessionLifecycle.Policy) throws -> [SessionRecord] {
        let now = store.clock.now
        return try store.sessions(user: user).map { session in
            var shown = session
            if shown.lifecycle.state == .background { shown.lifecycle.relockIfGraceElapsed(now: now, policy: policy) }
            return shown
        }
    }

    /// Signals the process prompting for `record`'s session, if another one does: it ends its
    /// evaluation with appCancel; a gate on a terminal keeps holding it.
    package func cancelPendingPrompt(of record: SessionRecord) {
        guard let owner = record.promptOwner, owner != probe.current else { return }
        probe.cancelPrompt(of: owner)
    }

    /// How long a `touchgate shell` owner gets to answer.
    package static let ownerTimeout = 3.0

    private struct Skipped: Error {}
}
