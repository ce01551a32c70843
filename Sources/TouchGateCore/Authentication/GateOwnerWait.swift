/// What ended one look-away while another process held the prompt.
package enum GateOwnerWait: Sendable, Equatable {
    /// The time passed.
    case elapsed
    /// Enter was typed at this gate: take the prompt over.
    case takeOver
    case interrupted(Interruption)
}
