import Glibc

/// Whole-buffer reads and writes on a stream socket, for the framed channels (``WorkerChannel``
/// to the biometric worker, ``ModuleChannel`` to `pam_touchgate.so`).
///
/// One definition of "send it all", "read it all" and of the buffer a payload that may hold a
/// secret is read into (locked in memory, wiped when the stream ends before it is whole), so the
/// two protocols differ only in their frames.
package enum StreamSocket {
    /// Accepts one waiting connection as a close-on-exec descriptor; `nil` when none is waiting
    /// (on a non-blocking listener) or on an error.
    ///
    /// `accept` then `fcntl(FD_CLOEXEC)` leaves a window in which a child that another thread
    /// spawns inherits the connection; `accept4(SOCK_CLOEXEC)` has none.
    ///
    /// The corresponding C function is `accept4`.
    package static func acceptConnection(_ listening: Int32) -> Int32? {
        let descriptor = retryingInterrupts { accept4(listening, nil, nil, Int32(SOCK_CLOEXEC.rawValue)) }
        return descriptor >= 0 ? descriptor : nil
    }

    /// Sends every byte of `bytes`; false when the peer is gone.
    ///
    /// The corresponding C function is `send` (with `MSG_NOSIGNAL`: a gone peer is no SIGPIPE).
    package static func sendAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = retryingInterrupts { Glibc.send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    /// Fills `buffer` from `descriptor`; false at end of stream or on an error.
    package static func receiveAll(_ descriptor: Int32, _ buffer: inout [UInt8]) -> Bool {
        var offset = 0
        let total = buffer.count
        while offset < total {
            let got = retryingInterrupts { buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + offset, total - offset) } }
            if got <= 0 { return false }
            offset += got
        }
        return true
    }

    /// Reads a payload of `count` bytes into memory locked against swapping (it may hold a
    /// secret), as bytes that wipe themselves; `nil` when the stream ends first.
    package static func receivePayload(_ descriptor: Int32, count: Int) -> SecureBytes? {
        var payload = [UInt8](repeating: 0, count: count)
        payload.withUnsafeBytes { if let base = $0.baseAddress, $0.count > 0 { _ = mlock(base, $0.count) } }
        // The read buffer is wiped either way; only the SecureBytes copy leaves.
        defer { wipe(&payload) }
        guard receiveAll(descriptor, &payload) else { return nil }
        return SecureBytes(copying: payload.withUnsafeBytes { $0 })
    }

    /// `accept4`, which the Glibc module does not export to Swift: looked up once in libc.
    private static let accept4: @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32 = {
        typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32
        guard let symbol = dlsym(nil, "accept4") else { fatalError("libc has no accept4") }
        return unsafeBitCast(symbol, to: Accept4.self)
    }()
}
