import Glibc
import TouchGateCore

extension AuthContext {
    /// Evaluates `policy`, asking for credentials as needed; returns on success and throws its
    /// ``AuthError`` otherwise (``AuthError/Code/storeUnavailable`` when the store cannot be used).
    ///
    /// The evaluation runs on a thread of its own (``evaluateOnAThreadOfItsOwn(_:reason:then:)``),
    /// since a prompt blocks its thread for as long as the user takes to answer: neither Swift's
    /// cooperative pool nor Dispatch's threads, which a caller's other work may hold, must be
    /// free for it to start.
    ///
    /// Compiled into the modules that call it (`@export(implementation)`), not into this one: a
    /// definition here would link Swift Concurrency into every program built on this library,
    /// the `touchgate` binary included, which never awaits an evaluation and whose every start
    /// would then relocate its metadata (measured in bench/RESULTS.md).
    ///
    /// Cancelling the calling task invalidates the context (``invalidate()``): the evaluation ends
    /// with `appCancel` (also when the task was cancelled before it began, where the invalidation
    /// came first), and later ones fail with `invalidContext`, as after any invalidation.
    @export(implementation)
    public func evaluate(_ policy: AuthPolicy, reason: String) async throws(AuthError) {
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<AuthError?, Never>) in
                evaluateOnAThreadOfItsOwn(policy, reason: reason) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            invalidate()
        }
        if outcome?.code == .invalidContext, Task.isCancelled { throw AuthError(.appCancel) }
        if let outcome { throw outcome }
    }

    /// Runs ``evaluateSynchronously(_:reason:)`` on a new detached thread (every signal blocked
    /// there, so they keep reaching the process's handlers) and hands `then` its error, or `nil`
    /// on success. When no thread can be created it runs on the calling thread.
    ///
    /// The corresponding C functions are `pthread_create`, `pthread_detach` and `pthread_sigmask`.
    @usableFromInline
    func evaluateOnAThreadOfItsOwn(_ policy: AuthPolicy, reason: String, then: @escaping @Sendable (AuthError?) -> Void) {
        let work: @Sendable () -> Void = {
            do throws(AuthError) {
                try self.evaluateSynchronously(policy, reason: reason)
                then(nil)
            } catch {
                then(error)
            }
        }
        final class Work {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var everySignal = sigset_t()
        var previous = sigset_t()
        sigfillset(&everySignal)
        pthread_sigmask(SIG_SETMASK, &everySignal, &previous)
        let handed = Unmanaged.passRetained(Work(work))
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<Work>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, handed.toOpaque()) == 0
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        if started {
            pthread_detach(thread)
        } else {
            handed.release()
            work()
        }
    }
}
