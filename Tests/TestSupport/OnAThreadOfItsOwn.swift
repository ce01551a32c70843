import Foundation

/// Runs `body` on a thread of its own while the calling task waits suspended, and returns what
/// it returned (or throws what it threw).
///
/// For an async test that must wait on something that blocks its thread: a child process, a
/// sleep, a blocking read. Swift Testing runs every test, synchronous ones too, on the cooperative
/// pool (two threads on a 2-CPU machine): a wait there holds a thread every other test needs.
/// The one such helper of the test targets; `RunningProcess.runOnAThreadOfItsOwn` is built on it.
public func onAThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
