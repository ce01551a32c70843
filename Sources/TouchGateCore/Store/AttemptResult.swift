/// How a counted attempt ended.
public enum AttemptResult: Equatable, Sendable {
    case success
    /// A credential was checked and rejected: the advance count stands.
    case failure(AuthError.Code)
    /// No credential was checked (cancelled before answering, fallback, stack unavailable): the
    /// advance count is taken back.
    case notChecked(AuthError.Code)
    /// A correct credential, but a signal or cancel arrived: counters reset, nothing unlocks.
    case verifiedButCancelled(AuthError.Code)
}
