import Glibc
import Synchronization

// The write end of the current interrupter's pipe; a signal handler can only reach a global. An
// atomic (lock-free, so async-signal-safe): the handler runs on whichever thread the signal hits.
private let relayDescriptor = Atomic<Int32>(-1)

private let relayHandler: @convention(c) (Int32) -> Void = { signal in
    var byte: UInt8 = switch signal {
    case SIGINT, SIGQUIT: Interruption.user.rawValue
    case SIGUSR1: Interruption.application.rawValue
    default: Interruption.system.rawValue
    }
    let saved = errno
    _ = write(relayDescriptor.load(ordering: .acquiring), &byte, 1)
    errno = saved
}

/// Turns signals into ``Interruption``s posted to an ``Interrupter``, so a blocked prompt wakes
/// and the evaluation ends with the matching outcome instead of the process dying mid-check.
///
/// SIGINT and SIGQUIT (Ctrl-C, Ctrl-\) are `userCancel`, SIGTERM and SIGHUP `systemCancel`,
/// SIGUSR1 (sent by a lifecycle event) `appCancel`. The corresponding C function is `sigaction`.
public enum SignalRelay {
    public static func install(_ signals: [Int32], to interrupter: Interrupter) {
        relayDescriptor.store(interrupter.writeDescriptor, ordering: .releasing)
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = relayHandler
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(signal, &action, nil)
        }
        // A parent may have started us with these signals blocked (the mask is inherited across
        // exec); blocked, they would never reach the handler and a prompt could not be cancelled.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for signal in signals { sigaddset(&unblocked, signal) }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    }

    /// Sets `signals` to be ignored (the gate must not be escapable with Ctrl-C, Ctrl-\ or Ctrl-Z).
    public static func ignore(_ signals: [Int32]) {
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = SIG_IGN
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
    }
}
