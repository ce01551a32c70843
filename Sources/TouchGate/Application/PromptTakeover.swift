import TouchGateCore
import TouchGateSystem

/// Whether a gate takes a session's prompt from its live owner without waiting: when the user
/// cannot reach the owner.
///
/// A gate in a tmux pane draws behind the session's locked clients, where no one sees it, so
/// any other gate takes over from it; a process on no terminal is not one the user types at, so
/// a gate on a terminal takes over from it. Any other owner is waited for (until Enter at the
/// waiting gate, ``GateStateMachine/ownerWaitEnded(sessionLocked:takeOver:)``). A policy of the
/// application over the prompt's claim (``PromptHold``), not of the gate's machine.
package enum PromptTakeover {
    /// Whether a gate claiming as `claimant` takes the prompt from live `owner` (claimed as `kind`).
    package static func takesOver(
        from owner: ProcessIdentity, kind: PromptClaimKind?, as claimant: PromptClaimKind,
        processes: any ProcessProbe = SystemProcessProbe()
    ) -> Bool {
        if kind == .tmuxPane, claimant != .tmuxPane { return true }
        let ownerOnTerminal = processes.hasControllingTerminal(owner.pid) ?? true
        let onTerminal = processes.hasControllingTerminal(processes.currentPID) ?? false
        return !ownerOnTerminal && onTerminal
    }
}
