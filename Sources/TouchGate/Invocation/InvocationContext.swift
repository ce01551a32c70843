import Glibc
import TouchGateSystem

/// What one touchgate invocation stands in: the global options its command line gave and the
/// environment it runs in, resolved by one set of rules (the store path, the user, the session
/// id, the remote host, pane or gate, the tmux sockets) for every command and executable.
///
/// The CLI parses the options into it and asks; nothing else reads `TOUCHGATE_STORE`,
/// `TOUCHGATE_USER`, `TOUCHGATE_SESSION`, `$TMUX` or the SSH variables. Its extensions group
/// the rules: `+Store` (which store, root's drop of privileges), `+User` (the user and its
/// validity, who runs the command), `+Session` (session ids, pane or gate, tmux sockets),
/// `+RemoteHost`.
package struct InvocationContext: Sendable {
    /// `--store PATH`.
    package var storeOption: String?
    /// `--user NAME`.
    package var userOption: String?
    /// `--system`: the system ledger instead of a user store.
    package var system: Bool
    /// The environment's variables (the process's own unless a test gives others).
    let variables: @Sendable (String) -> String?
    /// The user this process runs as (`geteuid()`): root may act on another user's store.
    let effectiveUser: uid_t

    package init(storeOption: String? = nil, userOption: String? = nil, system: Bool = false,
                variables: @escaping @Sendable (String) -> String? = { ProcessEnvironment.current[$0] },
                effectiveUser: uid_t = geteuid()) {
        self.storeOption = storeOption
        self.userOption = userOption
        self.system = system
        self.variables = variables
        self.effectiveUser = effectiveUser
    }

    /// The variable `name` of the environment, `nil` when unset.
    package subscript(name: String) -> String? { variables(name) }

    /// The variable `name` when it is set and not empty.
    func nonEmpty(_ name: String) -> String? {
        variables(name).flatMap { $0.isEmpty ? nil : $0 }
    }
}
