import Glibc

/// An `errno` value as a Swift error, with the system's text for it.
///
/// swift-system's shape: one type every system call's failure is reported as, and the one place
/// the text of an error is made (`strerror_r`, which unlike `strerror` is safe on any thread).
package struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int32

    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno` now.
    package static var current: Errno { Errno(rawValue: errno) }

    /// The system's text for the value (`strerror_r`), as `strerror` would give it.
    package var description: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard strerror_r(rawValue, &buffer, buffer.count) == 0 else { return "Unknown error \(rawValue)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    package static let interrupted = Errno(rawValue: EINTR)
    package static let wouldBlock = Errno(rawValue: EAGAIN)
    package static let badFileDescriptor = Errno(rawValue: EBADF)
    package static let noSuchProcess = Errno(rawValue: ESRCH)
    package static let noChildProcess = Errno(rawValue: ECHILD)
    package static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    package static let permissionDenied = Errno(rawValue: EACCES)
    package static let notSupported = Errno(rawValue: ENOSYS)

    /// `~=` so a `switch` over a caught error can match an `Errno` case directly.
    package static func ~= (pattern: Errno, value: Error) -> Bool {
        (value as? Errno) == pattern
    }
}
