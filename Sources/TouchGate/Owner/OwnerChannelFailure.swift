/// Why a `touchgate shell` cannot set up its channel (``OwnerChannel/listen(owner:directory:)``):
/// one line, for the owner's refusal to start.
public struct OwnerChannelFailure: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
