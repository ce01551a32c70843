import Glibc
import TouchGateCore
import TouchGateStore
import TouchGateSystem

/// The lock file that keeps two `touchgate watch` for the same user and store from acting at
/// once: `STORE.watch-USER` beside the store, held with `flock` while the watcher runs, holding
/// its pid. The kernel drops the lock when the process ends, however it ends.
package final class WatcherLock {
    package let path: FilePath
    private let descriptor: Int32

    private init(path: FilePath, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The lock file's path for `user`'s watcher of the store at `store`.
    package static func path(store: FilePath, user: String) -> FilePath {
        FilePath(store.string + ".watch-" + user)
    }

    /// What ``acquire(store:user:)`` found.
    package enum Outcome {
        case acquired(WatcherLock)
        /// Another watcher holds the lock; its pid, when the file names one.
        case held(pid: Int32?)
    }

    /// Takes the lock, or reports the watcher that holds it.
    package static func acquire(store: FilePath, user: String) throws(StoreError) -> Outcome {
        let path = path(store: store, user: user)
        let descriptor = open(path.string, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(path: store, reason: .unavailable, detail: "cannot open the watcher's lock file \(path): \(systemMessage())")
        }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            defer { close(descriptor) }
            guard failure == EWOULDBLOCK else {
                throw StoreError(path: store, reason: .unavailable, detail: "cannot lock \(path): \(systemMessage(failure))")
            }
            return .held(pid: readPID(descriptor))
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        return .acquired(WatcherLock(path: path, descriptor: descriptor))
    }

    /// The pid of the watcher running for `user` and the store at `store` (0 when the file names
    /// none), or `nil` when none runs. Never creates the file.
    package static func holder(store: FilePath, user: String) -> Int32? {
        let descriptor = open(path(store: store, user: user).string, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
            flock(descriptor, LOCK_UN)
            return nil
        }
        return errno == EWOULDBLOCK ? (readPID(descriptor) ?? 0) : nil
    }

    private static func readPID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).prefix { $0.isNumber })
    }
}
