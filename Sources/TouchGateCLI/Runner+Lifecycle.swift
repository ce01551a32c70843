import Glibc
import TouchGate

extension Runner {
    /// The session id: `TOUCHGATE_SESSION`, else the tmux session when inside tmux, else the terminal's path.
    func defaultSessionID() -> String? {
        if let explicit = environment["TOUCHGATE_SESSION"], !explicit.isEmpty { return explicit }
        if let tmux = environment["TMUX"], let id = tmuxSessionID(tmux) { return id }
        return terminalName()
    }

    package func relockPolicy(_ record: UserRecord, _ configuration: Configuration) -> SessionLifecycle.Policy {
        SessionLifecycle.Policy(enabled: record.enabled, graceSeconds: configuration.graceSeconds)
    }

    /// The relock policy of user `name`, as `store` has it now.
    package func relockPolicy(store: Store, user name: String) throws -> SessionLifecycle.Policy {
        relockPolicy(try store.user(name), try store.configuration(user: name))
    }

    func requireSession(_ session: String?) throws -> String {
        guard let id = session ?? defaultSessionID() else {
            throw UsageError("no session: pass --session ID or set TOUCHGATE_SESSION")
        }
        return try validSession(id)
    }

    /// `id` when it may be a session id: 1 to 256 bytes, printable (no control character, no
    /// invalid UTF-8; ``TerminalText/isPrintable(_:)``); exit 65 otherwise. Every id is checked
    /// here where it enters, since it is stored, logged and shown on the gate's cover.
    func validSession(_ id: String) throws -> String {
        guard !id.isEmpty, id.utf8.count <= 256, TerminalText.isPrintable(id) else {
            throw UsageError("invalid session id '\(id.escapedForMessage)'", exitCode: .badValue)
        }
        return id
    }

    /// `touchgate event NAME`: records a lifecycle event; an event the state does not allow exits 65.
    func record(_ event: LifecycleEvent, session: String?) throws -> ExitCode {
        let id = try requireSession(session)
        let store = try openStore()
        let name = try user
        let record = try apply(event, session: id, store: store, user: name)
        // A `touchgate shell` holding the session looks at it now (it covers its terminal when
        // the session is locked), before this command ends.
        // (Only for a session now locked or in the background: the owner's look at an unlocked
        // session marks it visible again, which would undo a will-resign-active.)
        let concerned = record.lifecycle.locked || record.lifecycle.state == .background
        let owners = concerned ? (try? store.shellOwners(session: id))?.map(\.owner).filter { $0.pid != getpid() } ?? [] : []
        if !owners.isEmpty { _ = OwnerChannel.lock(owners, timeout: 3) }
        emit(.object([
            ("session", .string(id)), ("event", .string(event.rawValue)),
            ("state", .string(record.lifecycle.state.rawValue)), ("locked", .bool(record.lifecycle.locked)),
        ]), text: nil)
        return .success
    }

    /// Applies `event` to session `id` and carries out its action; throws on an invalid transition.
    @discardableResult
    func apply(_ event: LifecycleEvent, session id: String, store: Store, user name: String) throws -> SessionRecord {
        let policy = try relockPolicy(store: store, user: name)
        let now = WallClock().now
        let (action, record) = try store.updateSession(id, user: name, recording: event) { record in
            (try record.lifecycle.handle(event, now: now, policy: policy), record)
        }
        if action == .cancelPendingPrompt { cancelPendingPrompt(of: record) }
        return record
    }
}

/// Signals the process prompting for `record`'s session, if another one does: it ends its
/// evaluation with appCancel (SIGUSR1); a gate on a terminal keeps holding it. The owner is
/// checked again just before: a pid whose start time no longer matches is another process.
package func cancelPendingPrompt(of record: SessionRecord) {
    guard let owner = record.promptOwner, owner.pid != getpid(), owner.isAlive else { return }
    kill(owner.pid, SIGUSR1)
}

/// `tmux-<server pid>-$<session id>` from `$TMUX` (`socket,pid,session`), matching the tmux
/// format `tmux-#{pid}-#{session_id}` that the snippet from `touchgate tmux-conf` uses.
func tmuxSessionID(_ value: String) -> String? {
    let parts = value.split(separator: ",", omittingEmptySubsequences: false)
    guard parts.count >= 3, let pid = Int(parts[1]), let session = Int(parts[2]) else { return nil }
    return "tmux-\(pid)-$\(session)"
}

/// A claim on a session's prompt, held while an `auth` waits for an answer, so that a
/// `did-enter-background` for the session can find it and cancel it.
///
/// The claim names this process by pid and start time (``ProcessIdentity``), so that once it is
/// gone, a process that gets its pid is never signalled or waited for.
struct PromptRegistration {
    let store: Store
    let session: String?
    let claimed: Bool

    init(store: Store, session: String?, user: String, kind: String) throws {
        self.store = store
        self.session = session
        if let session {
            claimed = try store.claimPrompt(session: session, user: user, pid: getpid(), kind: kind) == nil
        } else {
            claimed = false
        }
    }

    func end() {
        if claimed, let session { try? store.releasePrompt(session: session, pid: getpid()) }
    }
}
