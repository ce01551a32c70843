import Glibc

/// Calls `body`, a system call that returns -1 and sets `errno` on failure, and returns its value
/// or the `Errno`; with `retryOnInterrupt` (the default) a call a signal interrupted (`EINTR`) is
/// made again.
///
/// swift-system's `valueOrErrno(retryOnInterrupt:)`: the one retry-on-EINTR rule of touchgate.
/// No caller writes its own `errno == EINTR` loop.
@inline(__always)
package func valueOrErrno<Value: FixedWidthInteger>(
    retryOnInterrupt: Bool = true, _ body: () -> Value
) -> Result<Value, Errno> {
    while true {
        let value = body()
        if value != -1 { return .success(value) }
        let error = Errno.current
        if retryOnInterrupt, error == .interrupted { continue }
        return .failure(error)
    }
}

/// `body`'s value with interrupted calls made again: a negative value still leaves `errno` set
/// for the caller to read (`EAGAIN` on a non-blocking descriptor, an end of file as 0).
///
/// For call sites that keep C's convention (a count or -1); built on ``valueOrErrno(retryOnInterrupt:_:)``.
@inline(__always)
package func retryingInterrupts<Value: FixedWidthInteger>(_ body: () -> Value) -> Value {
    switch valueOrErrno(body) {
    case .success(let value): return value
    case .failure(let error):
        errno = error.rawValue
        return -1
    }
}

/// Writes every byte of `bytes` to `descriptor`, retrying interrupted and partial writes; false
/// when a write fails.
@discardableResult
package func writeFully(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < bytes.count {
        guard case .success(let written) = valueOrErrno({ write(descriptor, bytes.baseAddress! + offset, bytes.count - offset) }),
              written > 0 else { return false }
        offset += written
    }
    return true
}
