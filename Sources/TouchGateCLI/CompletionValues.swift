import TouchGate

/// What completes a value of an option or an argument in the shell completions.
package enum CompletionValues: Equatable, Sendable {
    /// Nothing: free text.
    case none
    case files
    case directories
    case users
    case policies
    case configKeys
    case events
    case tmuxHooks
    case shells
    case commands

    /// The fixed words, taken from the library's types, or `nil` when the shell finds them.
    package var words: [String]? {
        switch self {
        case .none, .files, .directories, .users: nil
        case .policies: AuthPolicy.allCases.map(\.rawValue)
        case .configKeys: Configuration.Key.allCases.map(\.rawValue)
        case .events: LifecycleEvent.allCases.map(\.rawValue)
        case .tmuxHooks: TmuxHook.allCases.map(\.rawValue)
        case .shells: CommandTable.shells
        case .commands: CommandTable.commandWords
        }
    }
}
