import Glibc

/// Runs one piece of work on a thread of its own while the caller goes on, until ``join()``.
///
/// For work whose waiting can overlap the caller's: folding the store's write-ahead log into
/// the file while PAM runs. Every signal is blocked on the helper, so signals keep reaching the
/// main thread's handlers. If no thread can be created, the work runs at once on the calling
/// thread: slower, never skipped. Creating and joining a thread has a cost of its own
/// (bench/RESULTS.md), so it pays only for work that waits on the disk.
///
/// The corresponding C functions are `pthread_create`, `pthread_sigmask` and `pthread_join`.
package final class HelperThread {
    // Written by the initializer before the thread exists, and by `join` on the owner's thread.
    private var thread = pthread_t()
    private var running = false

    /// The work, handed to the new thread (which releases it) so the thread never owns the helper.
    private final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    package init(_ work: @escaping @Sendable () -> Void) {
        var everySignal = sigset_t()
        var previous = sigset_t()
        sigfillset(&everySignal)
        pthread_sigmask(SIG_SETMASK, &everySignal, &previous)
        let handed = Unmanaged.passRetained(Work(work))
        running = pthread_create(&thread, nil, { context in
            Unmanaged<Work>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, handed.toOpaque()) == 0
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        if !running {
            handed.release()
            work()
        }
    }

    /// Waits until the work has finished; returns at once after the first call.
    package func join() {
        guard running else { return }
        running = false
        pthread_join(thread, nil)
    }

    deinit {
        join()
    }
}
