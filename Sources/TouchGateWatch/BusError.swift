/// A failure on the system bus: one line naming what did not work.
public struct BusError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
