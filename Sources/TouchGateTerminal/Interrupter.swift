import Glibc
import Synchronization
import TouchGateSystem
import TouchGateCore

/// A self-pipe that wakes a blocked prompt when a signal arrives or the context is invalidated.
///
/// Prompts `poll` on ``fileDescriptor`` beside their input, so an interruption that arrives just
/// before a read still wakes it; a pending interruption is also checked after the PAM call, so one
/// that arrives while a module works cannot be lost and never lets a success through.
///
/// Any thread posts and reads: the pipe's ends never change, and the latched interruption sits
/// under a lock, so ``pending`` and ``clear()`` from two threads cannot lose or tear it.
public final class Interrupter: Sendable {
    /// The end prompts poll on.
    public let fileDescriptor: Int32
    /// The end signal handlers and `post` write to.
    let writeDescriptor: Int32
    /// The first interruption seen, drained from the pipe under the same lock.
    private let latched: Mutex<Interruption?>

    public init() {
        let pipe = try? SelfPipe()
        // Without a pipe nothing can wake a prompt; fail closed by treating it as a system cancel.
        fileDescriptor = pipe?.readEnd ?? -1
        writeDescriptor = pipe?.writeEnd ?? -1
        latched = Mutex(pipe == nil ? .system : nil)
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
        latched.withLock { latched in
            var byte: UInt8 = 0
            while read(fileDescriptor, &byte, 1) == 1 {
                if latched == nil { latched = Interruption(rawValue: byte) }
            }
            return latched
        }
    }

    /// Forgets a seen interruption, for a gate that keeps asking after a cancelled prompt.
    public func clear() {
        latched.withLock { latched in
            var byte: UInt8 = 0
            while read(fileDescriptor, &byte, 1) == 1 {}
            latched = nil
        }
    }
}
