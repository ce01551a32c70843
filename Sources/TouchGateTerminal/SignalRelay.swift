import Glibc
import TouchGateSystem
import TouchGateCore

/// Turns signals into ``Interruption``s posted to an ``Interrupter``, so a blocked prompt wakes
/// and the evaluation ends with the matching outcome instead of the process dying mid-check.
///
/// SIGINT and SIGQUIT (Ctrl-C, Ctrl-\) are `userCancel`, SIGTERM and SIGHUP `systemCancel`,
/// SIGUSR1 (sent by a lifecycle event) `appCancel`, written by ``SelfPipe``'s relay.
package enum SignalRelay {
    /// Relays `signals` to `interrupter`, and every signal relayed before too.
    package static func install(_ signals: [Int32], to interrupter: Interrupter) {
        SelfPipe.retargetRelayedSignals(to: interrupter.writeDescriptor)
        SelfPipe.relay(signals, to: interrupter.writeDescriptor, restart: false) { signal in
            switch signal {
            case SIGINT, SIGQUIT: Interruption.user.rawValue
            case SIGUSR1: Interruption.application.rawValue
            default: Interruption.system.rawValue
            }
        }
    }

    /// Sets `signals` to be ignored (the gate must not be escapable with Ctrl-C, Ctrl-\ or Ctrl-Z).
    package static func ignore(_ signals: [Int32]) {
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = SIG_IGN
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
    }
}
