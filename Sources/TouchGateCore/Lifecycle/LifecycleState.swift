/// An iOS application lifecycle state, as a terminal session has it.
public enum LifecycleState: String, Sendable, CaseIterable {
    case notRunning
    case inactive
    case active
    case background
}
