/// What a process claims a session's prompt as (stored as `sessions.prompt_kind`).
package enum PromptClaimKind: String, Sendable {
    /// A gate on the terminal it runs in (a tmux client's lock-command, a shell outside tmux).
    case gate
    /// A gate run by the shell of a tmux pane: it draws inside the session, behind its clients.
    case tmuxPane = "tmux-pane"
    /// `touchgate auth` waiting for an answer.
    case auth
}
