/// How the gate ended.
package enum GateEnd: Sendable, Equatable {
    /// The session is unlocked (by this gate, or by another terminal's while this one waited).
    case unlocked
    /// The gate gave up; the session stays locked. The CLI exits with the code's status.
    case stopped(AuthError)
}
