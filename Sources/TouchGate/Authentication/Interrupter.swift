import Glibc
import TouchGateSystem

/// A self-pipe that wakes a blocked prompt when a signal arrives or the context is invalidated.
///
/// Prompts `poll` on ``fileDescriptor`` beside their input, so an interruption that arrives just
/// before a read still wakes it; a pending interruption is also checked after the PAM call, so one
/// that arrives while a module works cannot be lost and never lets a success through.
public final class Interrupter: @unchecked Sendable {
    /// The end prompts poll on.
    public let fileDescriptor: Int32
    /// The end signal handlers and `post` write to.
    let writeDescriptor: Int32
    private var latched: Interruption?

    public init() {
        let pipe = try? SelfPipe()
        // Without a pipe nothing can wake a prompt; fail closed by treating it as a system cancel.
        if pipe == nil { latched = .system }
        fileDescriptor = pipe?.readEnd ?? -1
        writeDescriptor = pipe?.writeEnd ?? -1
    }

    deinit {
        close(fileDescriptor)
        close(writeDescriptor)
    }

    /// Records an interruption and wakes any prompt. Safe to call from any thread.
    public func post(_ interruption: Interruption) {
        var byte = interruption.rawValue
        _ = write(writeDescriptor, &byte, 1)
    }

    /// The first interruption posted so far, if any; once one is seen it stays.
    public var pending: Interruption? {
        var byte: UInt8 = 0
        while read(fileDescriptor, &byte, 1) == 1 {
            if latched == nil { latched = Interruption(rawValue: byte) }
        }
        return latched
    }

    /// Forgets a seen interruption, for a gate that keeps asking after a cancelled prompt.
    public func clear() {
        _ = pending
        latched = nil
    }
}
