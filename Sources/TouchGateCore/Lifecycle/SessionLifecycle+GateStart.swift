extension SessionLifecycle {
    /// Whether a gate that starts finds the session open with nothing to decide: active,
    /// unlocked, no lock asked for, not idle past the limit. The gate's fast path: it writes nothing.
    public var needsNoDecisionAtGateStart: Bool {
        state == .active && !locked
    }

    /// The lifecycle's rules for a gate that starts over this session, in order: a session that
    /// is not running is launched (a launch that was not recorded); a shell idle since
    /// `idleSince` went to the background then and returns now; a return from the background
    /// is decided with the grace period; `lockRequest` locks; a session left unlocked becomes
    /// visible. Returns whether the session is locked afterwards.
    public mutating func gateStarts(idleSince: Double?, lockRequest: Bool, now: Double, policy: Policy) -> Bool {
        if state == .notRunning {
            _ = handle(.didFinishLaunching, now: now, policy: policy)
        }
        if let since = idleSince {
            idled(since: since, now: now, policy: policy)
        } else if state == .background || isReturning {
            relockIfGraceElapsed(now: now, policy: policy)
        } else if lockRequest {
            lock(policy: policy)
        }
        becameVisible(now: now, policy: policy)
        return locked
    }
}
