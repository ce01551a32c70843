import Glibc
import TouchGateSystem

/// "Is this a remote session, and from where": one answer from whichever source the caller has.
/// The CLI has its environment (the SSH variables sshd sets); the PAM helper has the host's
/// `PAM_RHOST` and its terminal (a login record, utmp, for it). A remote session is refused the
/// biometric factor of this machine, and its host goes to `PAM_RHOST` and into messages.
package enum RemoteHost {
    /// From the SSH variables: the first word of `SSH_CONNECTION` (or `SSH_CLIENT`), or `unknown`
    /// when only `SSH_TTY` says so; `nil` for a local session. Only address characters are kept.
    package static func fromSSH(_ variable: (String) -> String?) -> String? {
        for name in ["SSH_CONNECTION", "SSH_CLIENT"] {
            guard let value = variable(name), let first = value.split(separator: " ").first else { continue }
            let address = String(first.unicodeScalars.filter {
                $0.properties.isASCIIHexDigit || $0 == ":" || $0 == "." || $0 == "%" || ($0 >= "a" && $0 <= "z")
            }.map(Character.init).prefix(64))
            return address.isEmpty ? "unknown" : address
        }
        if let terminal = variable("SSH_TTY"), !terminal.isEmpty { return "unknown" }
        return nil
    }

    /// From a PAM host: `PAM_RHOST` when set, else the host of a login record (utmp) for the
    /// terminal device `terminalPath` (an SSH session on it); `nil` for a local host.
    package static func fromPAM(rhost: String, terminalPath: FilePath?, loginHost: (FilePath) -> String? = loginHost(onTerminal:)) -> String? {
        if !rhost.isEmpty { return rhost }
        return terminalPath.flatMap(loginHost)
    }

    /// The host of a login session recorded on `path` (`ut_host` of its `USER_PROCESS` entry),
    /// when it is not a local display.
    ///
    /// The corresponding C functions are `setutxent`, `getutxent` and `endutxent`.
    package static func loginHost(onTerminal path: FilePath) -> String? {
        let line = String(path.string.dropFirst("/dev/".count))
        setutxent()
        defer { endutxent() }
        while let entry = getutxent() {
            guard entry.pointee.ut_type == USER_PROCESS else { continue }
            let (entryLine, host) = withUnsafeBytes(of: entry.pointee.ut_line) { lineBytes in
                withUnsafeBytes(of: entry.pointee.ut_host) { hostBytes in
                    (String(decoding: lineBytes.prefix(while: { $0 != 0 }), as: UTF8.self),
                     String(decoding: hostBytes.prefix(while: { $0 != 0 }), as: UTF8.self))
                }
            }
            if entryLine == line, !host.isEmpty, !host.hasPrefix(":") { return host }
        }
        return nil
    }
}
