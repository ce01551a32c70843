extension SessionLifecycle {
    /// `event` when the state allows it, else nothing: the rule for events that come in orders
    /// iOS never produces (tmux hooks, the watcher sending every session away).
    ///
    /// Such an event is skipped, never forced, so no hook or watcher can unlock anything by
    /// sending events in an odd order. Returns the action, or `nil` when the event was skipped.
    public mutating func handleIfAllowed(_ event: LifecycleEvent, now: Double, policy: Policy) -> Action? {
        switch handle(event, now: now, policy: policy) {
        case .refused: nil
        case let action: action
        }
    }
}
