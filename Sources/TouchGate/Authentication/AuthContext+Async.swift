import Dispatch

extension AuthContext {
    /// Evaluates `policy`, asking for credentials as needed; returns on success and throws its
    /// ``AuthError`` otherwise (``AuthError/Code/storeUnavailable`` when the store cannot be used).
    ///
    /// The evaluation runs on a Dispatch thread, since a prompt blocks its thread for as long as
    /// the user takes to answer.
    ///
    /// Compiled into the modules that call it (`@export(implementation)`), not into this one: a
    /// definition here would link Swift Concurrency and libdispatch into every program built on
    /// this library, the `touchgate` binary included, which never awaits an evaluation and
    /// whose every start would then relocate their metadata (measured in bench/RESULTS.md).
    @export(implementation)
    public func evaluate(_ policy: AuthPolicy, reason: String) async throws(AuthError) {
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<AuthError?, Never>) in
            DispatchQueue.global().async {
                do throws(AuthError) {
                    try self.evaluateSynchronously(policy, reason: reason)
                    continuation.resume(returning: nil)
                } catch {
                    continuation.resume(returning: error)
                }
            }
        }
        if let outcome { throw outcome }
    }
}
