import TouchGateCore
import TouchGateStore
import TouchGateSystem

/// The use case of `touchgate shell`, the terminal owner: whether it holds the terminal at all,
/// and the session it holds: launched and active when it starts, locked or not whenever the
/// owner looks, sent away and ended when the program ends.
///
/// A store that cannot be read (`nil`, or one that fails later) locks the session: the gate then
/// asks offline for the passcode. Time is the store's clock.
package final class ShellSession {
    /// Whether `touchgate shell` runs its program directly, holding nothing: inside tmux (the
    /// client lock is the lock), inside another owner (the outer one holds the terminal), or
    /// without a terminal on standard input and output (no screen to cover), or when that
    /// terminal is not its controlling terminal (`su USER -c CMD`, `runuser -l USER -c CMD`: a
    /// session of its own, with the caller's terminal on its standard input). There the gate
    /// could never ask (`/dev/tty` does not open: notInteractive), and the command runs as
    /// `ssh host CMD` runs it: the account was authenticated by whoever ran it.
    package static func runsProgramDirectly(insideTmux: Bool, insideOwner: Bool, onTerminal: Bool,
                                           controllingTerminal: Bool = true) -> Bool {
        insideTmux || insideOwner || !onTerminal || !controllingTerminal
    }

    package let store: Store?
    /// The session's id (`shell-<pid>-<random>`).
    package let id: String
    package let user: String
    /// This owner, as the store lists it for the watcher and `touchgate event`.
    package let owner: ProcessIdentity
    private let events: LifecycleEvents?

    package init(store: Store?, id: String, user: String, owner: ProcessIdentity, probe: any ProcessProbe = SystemProcessProbe()) {
        self.store = store
        self.id = id
        self.user = user
        self.owner = owner
        events = store.map { LifecycleEvents(store: $0, user: user, probe: probe) }
    }

    /// Lists this owner and records the launch: `did-finish-launching`, `did-become-active`
    /// (locked while the lock is on).
    package func start() {
        try? store?.registerShellOwner(session: id, user: user, owner: owner)
        record(.didFinishLaunching)
        record(.didBecomeActive)
    }

    /// Records `event`; one the state does not allow, or a store that fails, changes nothing
    /// (the next ``check(_:)`` then finds the session locked).
    package func record(_ event: LifecycleEvent) {
        _ = try? events?.apply(event, session: id)
    }

    /// Whether the session is locked now, by the lifecycle's rules for a look at it (idle time
    /// since `.idle(since)`, a return from the background), and the idle limit to watch for.
    /// Locked, with no idle limit, when the store cannot say.
    package func check(_ reason: ShellOwnerCheckReason) -> (locked: Bool, idleSeconds: Int) {
        guard let store else { return (true, 0) }
        do {
            let record = try store.user(user)
            let configuration = try store.configuration(user: user)
            guard record.enabled else { return (false, configuration.idleSeconds) }
            var idleSince: Double?
            if case .idle(let since) = reason { idleSince = since }
            let locked = try GateStart.sessionIsLocked(
                store: store, session: id, record: record, configuration: configuration,
                existing: try store.session(id), idleSince: idleSince, lockRequest: false, now: store.clock.now)
            return (locked, configuration.idleSeconds)
        } catch {
            return (true, 0)
        }
    }

    /// The user's `idle-seconds` as the store has it now, or `nil` when it cannot say: a
    /// running owner follows a `config set` made elsewhere.
    package func idleSeconds() -> Int? {
        try? store?.configuration(user: user).idleSeconds
    }

    /// Whether the store has the session locked now, read only (nothing is recorded, so a
    /// will-resign-active stays as it is), and the idle limit: the owner's look after a focus
    /// report or a wake from a suspend. Locked, with no idle limit, when the store cannot say or
    /// has no row for the session while the lock is on.
    package func lookAtLock() -> (locked: Bool, idleSeconds: Int) {
        guard let store else { return (true, 0) }
        do {
            let record = try store.user(user)
            let configuration = try store.configuration(user: user)
            guard record.enabled else { return (false, configuration.idleSeconds) }
            guard let session = try store.session(id) else { return (true, configuration.idleSeconds) }
            return (session.lifecycle.locked, configuration.idleSeconds)
        } catch {
            return (true, 0)
        }
    }

    /// The program ended: the session goes away (`will-resign-active`, `did-enter-background`,
    /// `will-terminate`) and this owner is no longer listed.
    package func end() {
        record(.willResignActive)
        record(.didEnterBackground)
        record(.willTerminate)
        try? store?.removeShellOwner(session: id, owner: owner)
    }
}
