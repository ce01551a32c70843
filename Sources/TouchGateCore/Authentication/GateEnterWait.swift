/// What ended a wait for Enter at the gate's own prompt.
package enum GateEnterWait: Sendable, Equatable {
    /// A line (any: what was typed is wiped, never used).
    case enter
    case interrupted(Interruption)
    /// End of input (Ctrl-D, a closed pipe, a terminal gone).
    case endOfInput
    case notInteractive
}
