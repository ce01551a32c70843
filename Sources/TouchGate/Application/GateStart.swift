import TouchGateCore
import TouchGateStore

/// Whether a session is locked when a gate starts over it (`touchgate gate`, a `touchgate
/// shell` owner's look): ``SessionLifecycle/gateStarts(idleSince:lockRequest:now:policy:)``
/// over the store, in one transaction, or nothing written on the fast path.
///
/// The lifecycle's rule is the machine's; this is the use of it the application makes, so
/// that the gate's driver (``Gate``) holds no lifecycle policy.
package enum GateStart {
    /// Whether `session` is locked now, after the lifecycle's rules for a gate that starts: a
    /// launch the store never saw is recorded, idle time and a return from the background may
    /// lock, `lockRequest` locks, and a session left unlocked becomes visible.
    ///
    /// The fast path (an active, unlocked session with nothing to decide) only reads what the
    /// caller read already and writes nothing; everything else is one transaction.
    package static func sessionIsLocked(
        store: Store, session: String, record: UserRecord, configuration: Configuration, existing: SessionRecord?,
        idleSince: Double?, lockRequest: Bool, now: Double
    ) throws -> Bool {
        let idle = idleSince.map { configuration.idleSeconds > 0 && now - $0 >= Double(configuration.idleSeconds) } ?? false
        if let existing, existing.lifecycle.needsNoDecisionAtGateStart, !lockRequest, !idle {
            return false
        }
        // A session the store does not know, or one that is not running, is a launch that was not
        // recorded (the launch event failed, or nothing sent it): while the lock is on it is locked,
        // never shown on trust. The gate records the launch itself.
        let launching = existing == nil || existing?.lifecycle.state == .notRunning
        let policy = SessionLifecycle.Policy(enabled: record.enabled, graceSeconds: configuration.graceSeconds)
        return try store.updateSession(session, user: record.name, recording: launching ? .didFinishLaunching : nil) { state in
            state.lifecycle.gateStarts(idleSince: idle ? idleSince : nil, lockRequest: lockRequest, now: now, policy: policy)
        }
    }
}
