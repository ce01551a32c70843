/// A source of the current time, in seconds since 1970, injected so lockout arithmetic can be tested.
public protocol Clock: Sendable {
    var now: Double { get }
}
