import Glibc

/// The biometric worker's side of a socket pair with its parent, in frames: a kind byte, a
/// 4-byte big-endian length, then that many bytes.
///
/// Frames from the parent: ``Kind/start`` (what to check), ``Kind/answer`` (the reply to a
/// question, wiped by both sides after use), ``Kind/stop`` (the question was not answered: end the
/// transaction). From the worker: ``Kind/message`` (a style byte, then PAM's text: a question or an
/// information or error line), ``Kind/result`` (the 4-byte status of `pam_authenticate`, or of a
/// `pam_start` that failed after a first byte 0).
struct WorkerChannel {
    enum Kind: UInt8 {
        case start = 0x53 // S
        case answer = 0x41 // A
        case stop = 0x58 // X
        case message = 0x4D // M
        case result = 0x52 // R
    }

    /// The largest payload accepted: PAM's message and response sizes are far below it.
    static let maximumPayload = 64 * 1024

    let descriptor: Int32

    /// Sends one frame; false when the other side is gone.
    ///
    /// The corresponding C function is `send` (with `MSG_NOSIGNAL`: a gone peer is no SIGPIPE).
    @discardableResult
    func send(_ kind: Kind, _ payload: UnsafeRawBufferPointer) -> Bool {
        let count = UInt32(payload.count)
        let header: [UInt8] = [kind.rawValue, UInt8(count >> 24), UInt8((count >> 16) & 0xFF),
                               UInt8((count >> 8) & 0xFF), UInt8(count & 0xFF)]
        let sentHeader = header.withUnsafeBytes { StreamSocket.sendAll(descriptor, $0) }
        return sentHeader && StreamSocket.sendAll(descriptor, payload)
    }

    @discardableResult
    func send(_ kind: Kind, _ payload: [UInt8] = []) -> Bool {
        payload.withUnsafeBytes { send(kind, $0) }
    }

    /// Reads one whole frame (blocking); `nil` at end of stream, on an error or a malformed frame.
    /// The caller wipes a payload that may hold a secret.
    func receive() -> (kind: Kind, payload: [UInt8])? {
        var header = [UInt8](repeating: 0, count: 5)
        guard StreamSocket.receiveAll(descriptor, &header) else { return nil }
        let count = Int(header[1]) << 24 | Int(header[2]) << 16 | Int(header[3]) << 8 | Int(header[4])
        guard let kind = Kind(rawValue: header[0]), count <= Self.maximumPayload,
              let payload = StreamSocket.receivePayload(descriptor, count: count) else { return nil }
        return (kind, payload)
    }

    /// Fields joined by NUL bytes (none of them may hold one).
    static func joined(_ fields: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (index, field) in fields.enumerated() {
            if index > 0 { bytes.append(0) }
            bytes += field.utf8
        }
        return bytes
    }

    static func fields(_ bytes: [UInt8]) -> [String] {
        bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }
}
