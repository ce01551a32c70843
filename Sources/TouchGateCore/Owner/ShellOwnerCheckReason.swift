/// Why `touchgate shell`'s owner asks whether the session is locked.
///
/// Its own type in the core, not nested in `ShellOwnerStateMachine` (internal to
/// `TouchGateOwner`, beside its driver): the ``ShellSession`` use case in the library answers it.
package enum ShellOwnerCheckReason: Equatable, Sendable {
    /// The owner starts: a new session, locked while the lock is on, asks before the program runs.
    case launch
    /// No input for `idle-seconds` since `idleSince`.
    case idle(since: Double)
    /// The watcher (suspend, screen lock) or a lifecycle event for the session asked.
    case request
}
