/// What the gate's screen does for it: the drawing and the terminal's waits. The CLI's cover
/// implements it (``Gate`` and ``OfflineGate`` do the store work and follow ``GateStateMachine``).
public protocol GateScreen: AnyObject {
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
}

extension GateScreen {
    /// A screen that cannot read keys while it waits only pauses.
    public func waitForOwner(milliseconds: Int32) -> GateOwnerWait {
        pause(milliseconds: milliseconds).map { .interrupted($0) } ?? .elapsed
    }

    /// One second of a countdown: `machine`'s next step, or how an interruption ends it. An
    /// interruption the machine forgets (Ctrl-C at a terminal) is cleared from `interrupter` and
    /// the countdown goes on (a shorter second, never a longer one).
    func tick(_ machine: inout GateStateMachine, interrupter: Interrupter) -> GateStateMachine.Action {
        if let interruption = pause(milliseconds: 1_000) {
            let action = machine.interrupted(interruption)
            guard action == .resume else { return action }
            interrupter.clear()
        } else if terminalGone {
            return machine.terminalGone()
        }
        return machine.tick()
    }
}

/// What ended a wait for Enter at the gate's own prompt.
public enum GateEnterWait: Sendable, Equatable {
    /// A line (any: what was typed is wiped, never used).
    case enter
    case interrupted(Interruption)
    /// End of input (Ctrl-D, a closed pipe, a terminal gone).
    case endOfInput
    case notInteractive
}

/// What ended one look-away while another process held the prompt.
public enum GateOwnerWait: Sendable, Equatable {
    /// The time passed.
    case elapsed
    /// Enter was typed at this gate: take the prompt over.
    case takeOver
    case interrupted(Interruption)
}
