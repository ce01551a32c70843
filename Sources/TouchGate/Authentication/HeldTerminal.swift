import Glibc

/// What the stop and continue handlers need, in memory of its own (no Swift exclusivity checks
/// in a signal handler). The descriptor is set last and cleared first, so a handler sees it only
/// with the modes filled in.
struct HeldTerminal {
    var descriptor: Int32 = -1
    var redraw: Int32 = -1
    var original = termios()
    var held = termios()

    nonisolated(unsafe) static let shared: UnsafeMutablePointer<HeldTerminal> = {
        let pointer = UnsafeMutablePointer<HeldTerminal>.allocate(capacity: 1)
        pointer.initialize(to: HeldTerminal())
        return pointer
    }()
}
