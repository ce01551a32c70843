import TouchGate

/// What `touchgate gate` was asked to do.
package struct GateOptions: Equatable, Sendable {
    /// `--session ID`.
    package var session: String?
    /// `--lock`: this is a lock request (tmux's lock-command): lock the session now unless it is
    /// returning from the background within the grace period.
    package var lockRequest = false
    /// `--idle-since EPOCH`: the shell has been idle since then; past `idle-seconds` that counts
    /// as a trip to the background that began then.
    package var idleSince: Double?
    /// `--tmux-socket PATH`: the socket of the session's tmux server, from tmux's lock-command,
    /// for a session the hooks have not recorded yet (its launch).
    package var tmuxSocket: String?
    /// `--cancelable`: Ctrl-C ends the gate (userCancel) instead of clearing the line; `touchgate
    /// shell` runs its first gate so, before its program shows anything.
    package var cancelable = false

    package init() {}
}
