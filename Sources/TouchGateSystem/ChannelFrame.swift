/// One frame received on a helper's socket (the biometric worker's, the PAM module's): its kind
/// and its payload, which may be a secret (an answer), so it is ``SecureBytes``.
///
/// Why: the receiver learns the kind only with the frame, and an answer frame is a passcode or a
/// factor's reply; carrying every payload as bytes that wipe themselves leaves no received
/// secret in a copyable array that a path forgets to wipe.
package struct ChannelFrame<Kind>: ~Copyable {
    package let kind: Kind
    package let payload: SecureBytes

    package init(kind: Kind, payload: consuming SecureBytes) {
        self.kind = kind
        self.payload = payload
    }

    /// The payload, moved out of the frame: a consumer in another module cannot take the stored
    /// property itself (a noncopyable type that is not frozen is consumed whole outside its module).
    package consuming func takePayload() -> SecureBytes { payload }

    /// A copy of the payload, for frames whose kind carries no secret (a message, a result, a start).
    package var publicBytes: [UInt8] { payload.withUnsafeBytes { Array($0) } }
}
