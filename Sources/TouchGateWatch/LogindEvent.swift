/// What ``LogindConnection`` heard on the system bus.
package enum LogindEvent: Equatable, Sendable {
    /// `PrepareForSleep(true)`: the machine is about to sleep; `(false)`: it woke.
    case prepareForSleep(Bool)
    /// `Lock` on one of the user's sessions.
    case lock
    /// `Unlock` on one of the user's sessions.
    case unlock
    /// logind's name lost its owner (`false`) or got a new one (`true`).
    case logindPresent(Bool)
    /// The bus connection is gone.
    case disconnected
}
