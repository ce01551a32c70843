/// What completes a value of an option or an argument in the shell completions.
///
/// The words a program's own types spell (a policy, a config key) are `words`, which the
/// program's table takes from those types; the shell finds files, directories and users itself.
package enum CompletionValues: Equatable, Sendable {
    /// Nothing: free text.
    case none
    case files
    case directories
    case users
    /// The first words of the table's commands (`help COMMAND`).
    case commands
    /// These words.
    case words([String])

    /// The fixed words, or `nil` when the shell finds them or, for `commands`, the table names them
    /// (``CommandSpecTable/words(of:)``).
    package var words: [String]? {
        switch self {
        case .none, .files, .directories, .users, .commands: nil
        case .words(let words): words
        }
    }
}
