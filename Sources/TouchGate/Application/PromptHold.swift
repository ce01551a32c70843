import Glibc
import TouchGateCore
import TouchGateStore
import TouchGateSystem

/// This process's claim on a session's prompt: the one claim logic of `touchgate auth` and of
/// the gate. While it is held, a `did-enter-background` for the session finds this process and
/// ends its evaluation (appCancel).
///
/// The claim names the process by pid and start time (``ProcessIdentity``), so that once it is
/// gone, a process that gets its pid is never signalled or waited for. A claim taken over from
/// a live owner ends that owner's prompt (it claims again and finds this one's).
package final class PromptHold {
    /// Where the claim is kept: the store, or the offline ledger (which claims from no one).
    let ledger: any AttemptLedger
    package let session: String
    package let user: String
    package let kind: PromptClaimKind
    package let probe: any ProcessProbe
    /// Whether this process holds the claim now.
    package private(set) var held = false

    package convenience init(
        store: Store, session: String, user: String, kind: PromptClaimKind, probe: any ProcessProbe = SystemProcessProbe()
    ) {
        self.init(ledger: store, session: session, user: user, kind: kind, probe: probe)
    }

    init(ledger: any AttemptLedger, session: String, user: String, kind: PromptClaimKind, probe: any ProcessProbe) {
        self.ledger = ledger
        self.session = session
        self.user = user
        self.kind = kind
        self.probe = probe
    }

    /// Claims the prompt; a live owner keeps it unless `takingOver(owner, its kind)` says so.
    package func claim(
        takingOver: (ProcessIdentity, PromptClaimKind?) -> Bool = { _, _ in false }
    ) throws(StoreError) -> PromptClaim {
        let claim = try ledger.claimPrompt(session: session, user: user, pid: pid, kind: kind, takingOver: takingOver)
        switch claim {
        case .heldBy: break
        case .claimed: held = true
        case .tookOver(let owner):
            held = true
            probe.cancelPrompt(of: owner)
        }
        return claim
    }

    /// Gives the claim up, if this process holds it (a store that fails meanwhile keeps it
    /// until the process is gone, when it no longer counts).
    package func release() {
        guard held else { return }
        held = false
        try? ledger.releasePrompt(session: session, pid: pid)
    }

    private var pid: Int32 { probe.currentPID }
}
