import Glibc
import TouchGateSystem
import TouchGateCore

extension InvocationContext {
    /// The user named: `--user`, else `TOUCHGATE_USER` (`nil` when neither).
    package var namedUser: String? { userOption ?? self["TOUCHGATE_USER"] }

    /// The user: `--user`, then `TOUCHGATE_USER`, then the invoking user; a name that is not a
    /// valid user name (``isValidUserName(_:)``) is exit 65.
    package var user: String {
        get throws(UsageError) {
            guard let name = namedUser ?? invokingUserName(), !name.isEmpty else {
                throw UsageError("cannot tell the invoking user; pass --user NAME")
            }
            guard Self.isValidUserName(name) else {
                throw UsageError("invalid user name '\(name.escapedForMessage)'", exitCode: .badValue)
            }
            return name
        }
    }

    /// Whether `name` may be a user name, wherever one enters (the command line, the PAM
    /// module's start frame): 1 to 256 bytes, printable (``TerminalText/isPrintable(_:)``), no
    /// `:` (the password database's separator) and no `/` (it names files).
    package static func isValidUserName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 256 && TerminalText.isPrintable(name)
            && !name.unicodeScalars.contains(where: { $0 == ":" || $0 == "/" })
    }

    /// Who runs this command, as an audit entry names them: the user this process runs as; for
    /// an administrator's command (``isAdministratorsCommand``), then who logged in (the login
    /// uid, `/proc/self/loginuid`, which sudo and su keep) and `SUDO_USER` when either is there:
    /// `root (login uid 1000 alice, SUDO_USER alice)`. Read before the store is opened (root
    /// acting on a user's store becomes that user).
    ///
    /// The corresponding C function is `getpwuid`.
    package func invokingActor() -> String? {
        guard let name = invokingUserName() else { return nil }
        guard isAdministratorsCommand else { return name }
        var notes: [String] = []
        if let bytes = fileContents("/proc/self/loginuid"),
           let uid = UInt32(String(decoding: bytes.filter { $0 >= 0x30 && $0 <= 0x39 }, as: UTF8.self)), uid != UInt32.max {
            let login = getpwuid(uid_t(uid)).flatMap { $0.pointee.pw_name.map { String(cString: $0) } }
            notes.append("login uid \(uid)" + (login.map { " \($0)" } ?? ""))
        }
        if let sudo = nonEmpty("SUDO_USER") {
            notes.append("SUDO_USER \(TerminalText.sanitized(sudo, limit: 64))")
        }
        return notes.isEmpty ? name : "\(name) (\(notes.joined(separator: ", ")))"
    }
}

/// The name of the user this process runs as.
///
/// The corresponding C function is `getpwuid`.
package func invokingUserName() -> String? {
    guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return nil }
    return String(cString: name)
}

/// The controlling terminal's path (for `PAM_TTY` and the default session id), if any.
package func terminalName() -> String? {
    for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
        if let name = ttyname(descriptor) { return String(cString: name) }
    }
    return nil
}
