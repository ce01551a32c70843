/// What the gate's screen does for it: the drawing and the terminal's waits. ``GateCover``
/// implements it over a terminal (`Gate` in TouchGate does the ledger's work and follows its `GateStateMachine`).
package protocol GateScreen: AnyObject {
    /// Draws the status (before an evaluation, or while waiting for Enter) and a notice.
    func showStatus(_ status: GateStatus, notice: String?)
    /// Says that process `owner` is unlocking the session.
    func showWaitingForOwner(_ owner: Int32)
    /// Shows the passcode's throttling countdown below the header.
    func showCountdown(_ seconds: Int)
    /// Redraws the countdown line in place.
    func redrawCountdown(_ seconds: Int)
    /// Waits, waking early for an interruption; returns it, or `nil` when the time passed.
    func pause(milliseconds: Int32) -> Interruption?
    /// Waits while another process holds the prompt, waking early for an interruption or for
    /// Enter typed at this gate (the user wants to unlock here: ``GateOwnerWait/takeOver``).
    func waitForOwner(milliseconds: Int32) -> GateOwnerWait
    /// Waits for Enter at a prompt of the gate's own.
    func waitForEnter() -> GateEnterWait
    /// The terminal the gate holds is gone (a hangup signal does not always come).
    var terminalGone: Bool { get }
    /// Writes a line on standard error (`-S`: the outcome that ended the gate).
    func say(_ line: String)
    /// Gives the terminal back (the cover's modes and screen), once the gate is over.
    func release()
}

extension GateScreen {
    /// A screen that cannot read keys while it waits only pauses.
    package func waitForOwner(milliseconds: Int32) -> GateOwnerWait {
        pause(milliseconds: milliseconds).map { .interrupted($0) } ?? .elapsed
    }

    /// A screen that holds nothing gives nothing back.
    package func release() {}
}
