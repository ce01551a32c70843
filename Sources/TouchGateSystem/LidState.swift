import Glibc

/// Whether logind reports the lid closed (`LidClosed` on `org.freedesktop.login1.Manager`, read
/// from the system bus), so the reader, which sits under the lid, is not waited for.
///
/// Read by a small exec of systemd's `busctl` (the CLI and the PAM helper do not link libdbus;
/// only `touchgate-watch` does), bounded by a timeout. A bus that cannot be reached, a logind
/// that does not answer, a `busctl` that is not there: the lid counts as open, and the reader is
/// tried as before. The answer only ever skips the finger for the passcode, never the reverse.
package enum LidState {
    static let busctl = "/usr/bin/busctl"

    /// True when logind answers that the lid is closed (docked or not).
    package static func closed() -> Bool {
        guard access(busctl, X_OK) == 0 else { return false }
        let arguments = [busctl, "--system", "--timeout=1", "get-property", "org.freedesktop.login1",
                         "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "LidClosed"]
        // Nothing else of the parent's (the store, the terminal, the module's channel) reaches
        // busctl, even a descriptor opened without close-on-exec. busctl gives up after 1 s itself.
        guard let output = try? ChildProcess.runCapturingOutput(
            arguments, closingOtherDescriptors: true, inheritSignals: false, until: .after(seconds: 5), limit: 256
        ), output.termination.succeeded else { return false }
        return output.text.trimmingCharacters(in: " \n") == "b true"
    }
}

private extension String {
    func trimmingCharacters(in set: String) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text.removeFirst() }
        while let last = text.last, set.contains(last) { text.removeLast() }
        return String(text)
    }
}
