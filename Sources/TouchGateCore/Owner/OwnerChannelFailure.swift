/// Why a `touchgate shell` cannot set up its channel (``OwnerChannel/listen(owner:directory:)``):
/// one line, for the owner's refusal to start.
package struct OwnerChannelFailure: Error, CustomStringConvertible, Sendable {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
