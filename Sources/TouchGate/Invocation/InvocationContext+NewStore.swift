import TouchGateStore
import TouchGateSystem

extension InvocationContext {
    /// What to say when `store` was made by this process while the session's integration reads
    /// a store (`TOUCHGATE_HOOK_STORE`, the path the snippets export), or `nil`.
    ///
    /// A new store has the lock off, and no hook reads it: one at another path (a command typed
    /// with another `TOUCHGATE_STORE`) holds a lock no hook ever checks; one at the hooks' own
    /// path means the store they were set up with is gone (its id, which the snippets carry, is
    /// no longer there), so the hooks ask for the passcode until the integration is generated
    /// again. Either way the user learns which store this command read and that it is new.
    /// (The hooks themselves never make a store: they carry `--store-id`.)
    ///
    /// `forSnippet`: the store was made to generate a snippet, which will read it; that is said
    /// even outside an integrated session (an rc file that eval's `shell-init` after the store
    /// was deleted shows it there).
    package func newStoreNotice(_ store: Store, forSnippet: Bool = false) -> String? {
        guard store.createdByThisProcess else { return nil }
        var notice = "made a new store at \(store.path.string.escapedForMessage) (lock off)"
        let hooks = nonEmpty("TOUCHGATE_HOOK_STORE")
        let samePath = hooks.map { absolutePath(FilePath($0)) == absolutePath(store.path) } ?? false
        if forSnippet {
            notice += " for this snippet"
            if let hooks {
                notice += samePath ? ", where this session's integration had its store: that store is gone (deleted or moved)"
                    : "; this session's integration reads the store at \(hooks.escapedForMessage)"
            }
            return notice + "; touchgate enable turns the lock on"
        }
        guard let hooks else { return nil }
        guard samePath else { return notice + "; this session's integration reads the store at \(hooks.escapedForMessage)" }
        return notice + " where this session's integration had its store: that store is gone (deleted or moved), "
            + "and the integration does not read a new one; generate it again (touchgate tmux-conf, touchgate shell-init)"
    }
}
