import TouchGateCore
import TouchGateStore

/// What a change must be authorized by before it is made.
package enum Authorization: Equatable, Sendable {
    /// A device-owner evaluation (the biometric factor, else the passcode), asked for `reason`.
    case deviceOwner(reason: String)
    /// The passcode alone, for `purpose` (its audit entries), asked for `reason`.
    case passcode(purpose: AuditPolicy, reason: String)
}

/// The use case of the commands that change a user's lock (`enable`, `disable`, `config set`,
/// `reset`, `unenroll`): which change needs which authorization, and that nothing changes
/// without it.
///
/// The rules: turning the lock on or off needs device-owner, and asking for what is already so
/// needs nothing; while the lock is on, a setting that weakens it needs device-owner (one that
/// strengthens it needs nothing); `reset` needs the passcode, except for root; `unenroll` needs
/// the passcode. The evaluation itself is the injected `authorize` port (the CLI's prompts), run
/// only when a rule asks for it.
package struct SettingChanges {
    package let store: Store
    package let user: String
    /// The session the change is made from (in the audit log).
    package let session: String?
    /// Runs the evaluation `Authorization` names: `nil` for a success, else why it failed.
    package let authorize: (Authorization) throws -> AuthError?

    package init(store: Store, user: String, session: String?, authorize: @escaping (Authorization) throws -> AuthError?) {
        self.store = store
        self.user = user
        self.session = session
        self.authorize = authorize
    }

    /// How `enable` / `disable` ended.
    package struct Toggle: Equatable, Sendable {
        /// Why the change was refused, or `nil`.
        package var error: AuthError?
        /// Whether the lock is on now.
        package var enabled: Bool
        /// The lock was already so: nothing asked, nothing changed.
        package var already: Bool
    }

    /// `enable` (`true`) / `disable` (`false`): the setting changes only after a successful
    /// device-owner evaluation.
    package func toggle(_ enabled: Bool, reason: String? = nil) throws -> Toggle {
        if try store.user(user).enabled == enabled { return Toggle(error: nil, enabled: enabled, already: true) }
        let error = try authorize(.deviceOwner(reason: reason ?? (enabled ? "turn the touchgate lock on" : "turn the touchgate lock off")))
        if error == nil { try store.setEnabled(enabled, user: user, session: session) }
        return Toggle(error: error, enabled: try store.user(user).enabled, already: false)
    }

    /// `config set KEY VALUE`: the settings in effect afterwards, or why the change was
    /// refused. A value that does not validate throws ``Configuration/InvalidValue``, one weaker
    /// than `/etc/touchgate.conf` allows throws ``SystemPolicy/Refusal``; either changes nothing.
    ///
    /// Whether the change weakens the lock is judged on the values in effect (the system
    /// policy's where the store holds a weaker one).
    package func set(_ key: Configuration.Key, to text: String, reason: String? = nil, actor: String?) throws -> Result<Configuration, AuthError> {
        let stored = try store.storedConfiguration(user: user)
        var updated = stored
        try updated.set(key, to: text)
        try store.systemPolicy.check(key, in: updated)
        let policy = store.systemPolicy
        if try store.user(user).enabled, policy.effective(stored).weakens(key, to: policy.effective(updated)),
           let error = try authorize(.deviceOwner(reason: reason ?? "weaken the touchgate lock (\(key.rawValue))")) {
            return .failure(error)
        }
        try store.save(key, from: updated, user: user, session: session, actor: actor)
        return .success(policy.effective(updated))
    }

    /// `reset`: clears lockout and throttling after the passcode; `callerIsRoot` (the process
    /// ran as root when it started, before it became the user to open the store) needs none.
    /// `actor`, who asked, is in the audit entry.
    package func reset(reason: String? = nil, callerIsRoot: Bool, actor: String? = nil) throws -> AuthError? {
        if !callerIsRoot, let error = try authorize(.passcode(purpose: .reset, reason: reason ?? "reset the lockout counters")) {
            return error
        }
        try store.resetCounters(user: user, session: session, actor: actor)
        return nil
    }

    /// `unenroll`: removes the biometric enrollment after the passcode.
    package func unenroll(reason: String? = nil) throws -> AuthError? {
        if let error = try authorize(.passcode(purpose: .unenroll, reason: reason ?? "remove the biometric enrollment")) {
            return error
        }
        try store.setEnrolled(false, user: user, session: session)
        return nil
    }
}
