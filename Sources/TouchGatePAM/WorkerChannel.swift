import Glibc
import TouchGateCore
import TouchGateSystem

/// The biometric worker's side of a socket pair with its parent, in frames: a kind byte, a
/// 4-byte big-endian length, then that many bytes.
///
/// Frames from the parent: ``Kind/start`` (what to check), ``Kind/answer`` (the reply to a
/// question, wiped by both sides after use), ``Kind/stop`` (the question was not answered: end the
/// transaction). From the worker: ``Kind/message`` (a style byte, then PAM's text: a question or an
/// information or error line), ``Kind/result`` (a byte 1 and the 4-byte status of
/// `pam_authenticate`, or a byte 0 and the status of a `pam_start` that failed). Those payloads
/// are written and read here only: ``messagePayload(style:text:)`` and ``message(_:)``,
/// ``resultPayload(_:)`` and ``result(_:)``.
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
        let header = [kind.rawValue] + Self.bigEndian(UInt32(payload.count))
        let sentHeader = header.withUnsafeBytes { StreamSocket.sendAll(descriptor, $0) }
        return sentHeader && StreamSocket.sendAll(descriptor, payload)
    }

    @discardableResult
    func send(_ kind: Kind, _ payload: [UInt8] = []) -> Bool {
        payload.withUnsafeBytes { send(kind, $0) }
    }

    /// Reads one whole frame (blocking); `nil` at end of stream, on an error or a malformed frame.
    /// The payload wipes itself (``SecureBytes``).
    func receive() -> ChannelFrame<Kind>? {
        var header = [UInt8](repeating: 0, count: 5)
        guard StreamSocket.receiveAll(descriptor, &header) else { return nil }
        let count = Int(Self.bigEndian(header[1...]))
        guard let kind = Kind(rawValue: header[0]), count <= Self.maximumPayload,
              let payload = StreamSocket.receivePayload(descriptor, count: count) else { return nil }
        return ChannelFrame(kind: kind, payload: payload)
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

    /// A 32-bit value as 4 bytes, most significant first (a frame's length, a status).
    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    /// The value of the first 4 bytes of `bytes`, most significant first.
    static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A ``Kind/message`` payload: the style's byte, then the text; `nil` for a style that is
    /// never relayed.
    static func messagePayload(style: PAMMessageStyle, text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let raw = style.pamStyle else { return nil }
        return [UInt8(raw)] + text
    }

    /// A ``Kind/message`` payload read back: the style and the text's bytes (not sanitized yet);
    /// `nil` when it is empty.
    static func message(_ payload: [UInt8]) -> (style: PAMMessageStyle, text: ArraySlice<UInt8>)? {
        guard let first = payload.first else { return nil }
        return (PAMMessageStyle(pamStyle: Int32(first)), payload.dropFirst())
    }

    /// A ``Kind/result`` payload: whether the transaction started, then its status.
    static func resultPayload(_ end: PAMTransaction.End) -> [UInt8] {
        [end.started ? 1 : 0] + bigEndian(UInt32(bitPattern: end.status))
    }

    /// A ``Kind/result`` payload read back; `nil` unless it has the 5 bytes ``resultPayload(_:)``
    /// writes.
    static func result(_ payload: [UInt8]) -> PAMTransaction.End? {
        guard payload.count == 5 else { return nil }
        return PAMTransaction.End(started: payload[0] == 1, status: Int32(bitPattern: bigEndian(payload[1...])))
    }
}
