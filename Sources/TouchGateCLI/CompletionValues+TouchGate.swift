import TouchGate
import TouchGateArguments

/// The words that complete touchgate's values, taken from the library's types.
extension CompletionValues {
    package static let policies = Self.words(AuthPolicy.allCases.map(\.rawValue))
    package static let configKeys = Self.words(Configuration.Key.allCases.map(\.rawValue))
    package static let events = Self.words(LifecycleEvent.allCases.map(\.rawValue))
    package static let tmuxHooks = Self.words(TmuxHook.allCases.map(\.rawValue))
    package static let shells = Self.words(CommandTable.shells)
}
