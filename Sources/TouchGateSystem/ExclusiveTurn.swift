import Glibc
import Synchronization

/// A checked promise that one thread at a time uses an object which is not thread-safe, after
/// NIO's `NIOLoopBound` and GRDB's `SerializedDatabase`: it records which thread holds the
/// object's turn and stops the process when a second thread's call would overlap it.
///
/// Why: ``AuthContext`` crosses threads (``AuthContext/invalidate()`` comes from another one, the
/// async `evaluate` runs on a thread of its own), but its ledger is a ``Store`` whose SQLite
/// connection is opened `SQLITE_OPEN_NOMUTEX`, and its prompts and checkers hold descriptors and
/// buffers of one caller. The compiler cannot see that they are used by one thread at a time;
/// this turns the comment that said so into a check, as a trap rather than a corrupt store.
/// The turn is re-entrant on the thread that holds it (an evaluation goes through several of the
/// context's entry points), and costs one compare-and-exchange per entry.
///
/// The corresponding C function is `pthread_self`.
package final class ExclusiveTurn: Sendable {
    /// `pthread_self()` of the thread whose turn it is, 0 when nobody's.
    private let holder = Atomic<UInt>(0)
    /// What the trap's message names.
    let subject: String

    package init(_ subject: String) {
        self.subject = subject
    }

    /// Runs `body` in the calling thread's turn; traps when another thread holds it now.
    package func take<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let entered = enter()
        defer { if entered { leave() } }
        return try body()
    }

    /// Takes the turn for the calling thread; false when it held it already (a nested entry).
    func enter() -> Bool {
        let me = Self.currentThread
        let (exchanged, current) = holder.compareExchange(expected: 0, desired: me, ordering: .acquiring)
        if exchanged { return true }
        precondition(current == me, "\(subject) used by two threads at once (it is not thread-safe: one call at a time)")
        return false
    }

    /// Gives the turn back (after an ``enter()`` that returned true).
    func leave() {
        holder.store(0, ordering: .releasing)
    }

    /// Whether the calling thread holds the turn now.
    package var isHeldByCurrentThread: Bool { holder.load(ordering: .acquiring) == Self.currentThread }

    /// Whether any thread holds the turn now.
    var isHeld: Bool { holder.load(ordering: .acquiring) != 0 }

    private static var currentThread: UInt { UInt(pthread_self()) }
}
