import Glibc
import Synchronization

/// What the stop and continue handlers need, in memory of its own (no Swift exclusivity checks
/// in a signal handler). The descriptor is an atomic, stored last (releasing) and cleared first,
/// so a handler on any thread that loads it (acquiring) sees the modes filled in.
struct HeldTerminal {
    /// The held terminal, or -1: the flag that publishes ``shared`` to the handlers.
    static let descriptor = Atomic<Int32>(-1)
    var redraw: Int32 = -1
    var original = termios()
    var held = termios()

    /// Written only while ``descriptor`` is -1, read by the handlers only while it is not.
    nonisolated(unsafe) static let shared: UnsafeMutablePointer<HeldTerminal> = {
        let pointer = UnsafeMutablePointer<HeldTerminal>.allocate(capacity: 1)
        pointer.initialize(to: HeldTerminal())
        return pointer
    }()
}
