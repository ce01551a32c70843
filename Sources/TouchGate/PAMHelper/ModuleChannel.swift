import Glibc
import TouchGateCore
import TouchGateSystem

/// The helper's side of the socket pair with `pam_touchgate.so`, in frames: a kind byte, a
/// two-byte big-endian length, then at most ``maximumPayload`` bytes (`PAMModule/pam_touchgate.h`
/// is the module's copy of this protocol).
///
/// From the module: ``Kind/start`` (the PAM items), ``Kind/answer`` and ``Kind/noAnswer`` (the
/// host's conversation). To the module: the prompts and lines to run through the host's
/// conversation and, last, ``Kind/outcome`` (the evaluation's `LAError` code). Anything else,
/// or a length out of range, ends the exchange: both sides fail closed.
package struct ModuleChannel {
    package enum Kind: UInt8 {
        case start = 0x53 // S
        case answer = 0x41 // A
        case noAnswer = 0x4E // N
        case promptEchoOff = 0x50 // P
        case promptEchoOn = 0x51 // Q
        case info = 0x49 // I
        case error = 0x45 // E
        case outcome = 0x4F // O
    }

    /// The largest payload either side sends or accepts (PAM's messages and answers are smaller).
    package static let maximumPayload = 1024

    /// The descriptor the module hands the helper the socket on.
    package static let descriptor: Int32 = 3

    package let descriptor: Int32

    package init(descriptor: Int32 = ModuleChannel.descriptor) {
        self.descriptor = descriptor
    }

    /// Sends one frame (a payload too long is cut to ``maximumPayload``); false when the module is gone.
    @discardableResult
    package func send(_ kind: Kind, _ payload: [UInt8] = []) -> Bool {
        let count = min(payload.count, Self.maximumPayload)
        var frame: [UInt8] = [kind.rawValue, UInt8(count >> 8), UInt8(count & 0xFF)]
        frame += payload.prefix(count)
        defer { wipe(&frame) }
        return frame.withUnsafeBytes { StreamSocket.sendAll(descriptor, $0) }
    }

    /// Sends the last frame, ``Kind/outcome``: the evaluation's code as 4 bytes, most significant
    /// first (the module reads it back as a signed 32-bit value).
    @discardableResult
    func sendOutcome(_ code: AuthError.Code) -> Bool {
        let value = UInt32(bitPattern: Int32(code.rawValue))
        return send(.outcome, [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF),
                               UInt8(value & 0xFF)])
    }

    /// Sends `text` as a message frame, cut to whole characters within the payload limit.
    @discardableResult
    func send(_ kind: Kind, text: String) -> Bool {
        var bytes = Array(text.utf8)
        if bytes.count > Self.maximumPayload {
            bytes = Array(bytes.prefix(Self.maximumPayload))
            while let last = bytes.last, last & 0xC0 == 0x80 { bytes.removeLast() }
            if let last = bytes.last, last >= 0xC0 { bytes.removeLast() }
        }
        return send(kind, bytes)
    }

    /// Reads one whole frame; `nil` at end of stream, on an error, an unknown kind or a length out
    /// of range. The payload wipes itself (``SecureBytes``).
    package func receive() -> ChannelFrame<Kind>? {
        var header = [UInt8](repeating: 0, count: 3)
        guard StreamSocket.receiveAll(descriptor, &header) else { return nil }
        let count = Int(header[1]) << 8 | Int(header[2])
        guard let kind = Kind(rawValue: header[0]), count <= Self.maximumPayload,
              let payload = StreamSocket.receivePayload(descriptor, count: count) else { return nil }
        return ChannelFrame(kind: kind, payload: payload)
    }
}
