import TouchGate

/// Something that happened to the watcher, queued until the watcher gives it to its
/// ``WatchStateMachine`` (one input method each): what logind says, what a connection attempt
/// or the inhibitor came to, a signal. A queue, because carrying out an action (connecting,
/// taking the inhibitor) is itself something that happened.
enum WatcherInput: Equatable, Sendable {
    /// The watcher starts.
    case started
    /// The bus connection is up and subscribed; whether logind is on the bus.
    case connected(logindPresent: Bool)
    /// Connecting failed, or the connection went away; the text says why.
    case disconnected(String)
    /// The reconnect delay is over.
    case reconnectDue
    /// logind left the bus (its name lost its owner), or came back.
    case logindPresent(Bool)
    /// `PrepareForSleep(true)` (the machine is about to sleep) or `(false)` (it woke).
    case prepareForSleep(Bool)
    /// `Lock` on one of the user's sessions (`loginctl lock-session`, a desktop locker).
    case sessionLock
    /// `Unlock` on one of the user's sessions.
    case sessionUnlock
    /// The delay inhibitor was taken (`true`) or logind refused it (`false`).
    case inhibitorTaken(Bool)
    /// SIGTERM, SIGINT or SIGHUP.
    case terminate
}
