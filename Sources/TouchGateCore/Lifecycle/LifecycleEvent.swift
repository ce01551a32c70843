
/// An iOS application lifecycle notification, as `touchgate event` spells it.
public enum LifecycleEvent: String, Sendable, CaseIterable {
    case didFinishLaunching = "did-finish-launching"
    case willResignActive = "will-resign-active"
    case didEnterBackground = "did-enter-background"
    case willEnterForeground = "will-enter-foreground"
    case didBecomeActive = "did-become-active"
    case willTerminate = "will-terminate"
}
