import Glibc
import Synchronization

/// For each signal number, the descriptor its handler writes to (-1: none); a signal handler can
/// only reach globals. Atomics (lock-free, so async-signal-safe): a relay is retargeted on one
/// thread while the handler may run on another.
private let signalTargets = InlineArray<65, Atomic<Int32>> { _ in Atomic(-1) }

/// For each signal number, the byte its handler writes.
private let signalBytes = InlineArray<65, Atomic<UInt8>> { _ in Atomic(0) }

/// The handler of every relayed signal: one `write` of the signal's byte, `errno` kept (async-signal-safe).
private let relayHandler: @convention(c) (Int32) -> Void = { signal in
    guard signal > 0, signal < 65 else { return }
    let saved = errno
    var byte = signalBytes[Int(signal)].load(ordering: .acquiring)
    _ = write(signalTargets[Int(signal)].load(ordering: .acquiring), &byte, 1)
    errno = saved
}

extension SelfPipe {
    /// Relays `signals` to this pipe: each one that arrives writes `byte(signal)` (by default the
    /// signal's number) to ``writeEnd``, and the signals are unblocked on this thread.
    ///
    /// - Parameter restart: `SA_RESTART` (a loop that polls the pipe), or not (a blocking call
    ///   the signal must interrupt).
    package func relay(_ signals: [Int32], restart: Bool, byte: (Int32) -> UInt8 = { UInt8(truncatingIfNeeded: $0) }) {
        Self.relay(signals, to: writeEnd, restart: restart, byte: byte)
    }

    /// ``relay(_:restart:byte:)`` to the write end `descriptor` of a pipe held elsewhere.
    ///
    /// A parent may have started this process with the signals blocked (the mask is inherited
    /// across exec); blocked, they would never reach the handler. The corresponding C functions
    /// are `sigaction` and `pthread_sigmask`.
    package static func relay(_ signals: [Int32], to descriptor: Int32, restart: Bool,
                              byte: (Int32) -> UInt8 = { UInt8(truncatingIfNeeded: $0) }) {
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for signal in signals where signal > 0 && signal < 65 {
            signalBytes[Int(signal)].store(byte(signal), ordering: .releasing)
            signalTargets[Int(signal)].store(descriptor, ordering: .releasing)
            var action = sigaction()
            action.__sigaction_handler.sa_handler = relayHandler
            sigemptyset(&action.sa_mask)
            action.sa_flags = restart ? SA_RESTART : 0
            sigaction(signal, &action, nil)
            sigaddset(&unblocked, signal)
        }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    }

    /// Points every signal relayed so far at `descriptor` instead (one pipe for all of them: the
    /// one of the evaluation now running, whose earlier pipe may be closed).
    package static func retargetRelayedSignals(to descriptor: Int32) {
        for signal in 1..<65 where signalTargets[signal].load(ordering: .acquiring) >= 0 {
            signalTargets[signal].store(descriptor, ordering: .releasing)
        }
    }
}
