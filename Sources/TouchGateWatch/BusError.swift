/// A failure on the system bus: one line naming what did not work.
package struct BusError: Error, CustomStringConvertible, Sendable {
    package let description: String
    package init(_ description: String) { self.description = description }
}
