import Glibc
import TouchGateCore
import TouchGateSystem
import TouchGateStore
import TouchGateTerminal

/// What `pam_touchgate.so` hands the helper: the host's PAM items and the module's `factor=`
/// option, read strictly from the start frame, and what follows from them (the flow, the store).
///
/// Pure apart from ``terminalIsLocal`` and ``openTerminal()``: the decisions are here once, the
/// helper only performs them.
package struct PAMHostRequest: Equatable, Sendable {
    /// Which factor the module's `factor=` option asks for (empty: device owner, both).
    package enum Factor: String, Sendable { case both = "", biometric, passcode }

    package var user: String
    package var requestingUser: String
    package var service: String
    package var terminal: String
    package var remoteHost: String
    package var factor: Factor
    /// The module found the host asking on the terminal `PAM_TTY` names (its standard input is
    /// that terminal and it is not `sudo -S` or `sudo -A`): only then may the helper ask there.
    package var hostAsksAtTerminal: Bool
    /// The module's `silent` option or the host's `PAM_SILENT`: no counts or delays are shown.
    package var silent: Bool

    /// A start frame that is not exactly seven length-prefixed items, or whose user, factor or flags are not valid.
    package struct Malformed: Error, Equatable, Sendable {
        package let reason: String
    }

    /// The frame's items in the module's order: user, ruser, service, tty, rhost, factor, flags
    /// (the words `terminal` and `silent`, space-separated).
    package init(startFrame payload: [UInt8]) throws(Malformed) {
        var items: [String] = []
        var offset = 0
        while offset < payload.count {
            guard payload.count - offset >= 2 else { throw Malformed(reason: "a cut length") }
            let length = Int(payload[offset]) << 8 | Int(payload[offset + 1])
            offset += 2
            guard length <= 255, payload.count - offset >= length else { throw Malformed(reason: "an item past the frame") }
            let bytes = payload[offset..<offset + length]
            guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else {
                throw Malformed(reason: "an item that is not text")
            }
            items.append(text)
            offset += length
        }
        guard items.count == 7 else { throw Malformed(reason: "\(items.count) items, not 7") }
        guard InvocationContext.isValidUserName(items[0]) else {
            throw Malformed(reason: "an invalid user name")
        }
        guard let factor = Factor(rawValue: items[5]) else { throw Malformed(reason: "an unknown factor") }
        let flags = items[6].split(separator: " ", omittingEmptySubsequences: false)
        guard items[6].isEmpty || flags.allSatisfy({ $0 == "terminal" || $0 == "silent" }) else {
            throw Malformed(reason: "an unknown flag")
        }
        (user, requestingUser, service, terminal, remoteHost) = (items[0], items[1], items[2], items[3], items[4])
        self.factor = factor
        hostAsksAtTerminal = flags.contains("terminal")
        silent = flags.contains("silent")
    }

    /// The system ledger: where a helper run by a root host (sudo, su, login) counts.
    package static let systemStorePath: FilePath = "/var/lib/touchgate/touchgate.sqlite"

    /// The store to count in: the system ledger when the host runs as root, else the user's own
    /// store (a lock screen running as the user), with the user store's threat model.
    package static func storePath(effectiveUser: uid_t = geteuid()) -> FilePath? {
        effectiveUser == 0 ? systemStorePath : Store.defaultPath()
    }

    /// The terminal device `PAM_TTY` names (`/dev/pts/3`, `pts/3`, `tty1`), or `nil` for an X
    /// display (`:0`), a service name (`ssh`) or nothing.
    package var terminalPath: FilePath? {
        guard !terminal.isEmpty, !terminal.contains(":"), !terminal.contains("..") else { return nil }
        if terminal.hasPrefix("/dev/") { return FilePath(terminal) }
        return terminal.hasPrefix("/") ? nil : FilePath("/dev/" + terminal)
    }

    /// The remote host the biometric factor is refused for: `PAM_RHOST` when set, else the host
    /// of a login record (utmp) for the terminal (``RemoteHost/fromPAM(rhost:terminalPath:loginHost:)``).
    package var remote: String? { RemoteHost.fromPAM(rhost: remoteHost, terminalPath: terminalPath) }

    /// Opens the terminal for the terminal flow: a character device that is a terminal, not a
    /// symbolic link; `nil` otherwise (the flow goes through the host's conversation).
    ///
    /// The corresponding C functions are `lstat`, `open` and `isatty`.
    package func openTerminal() -> TerminalPrompts? {
        guard let path = terminalPath else { return nil }
        var information = stat()
        guard lstat(path.string, &information) == 0, information.st_mode & S_IFMT == S_IFCHR else { return nil }
        guard let prompts = TerminalPrompts(path: path), isatty(prompts.fileDescriptor) == 1 else { return nil }
        return prompts
    }

    /// Whether the account `name` exists (the name service knows it).
    ///
    /// The corresponding C function is `getpwnam_r`.
    package static func userExists(_ name: String) -> Bool {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        return getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0 && result != nil
    }

    /// The session the audit log names each try with: the PAM service, who asked, and from which
    /// terminal (`PAM_TTY`) and remote host.
    package var auditSession: String {
        "pam:\(service)" + (requestingUser.isEmpty ? "" : " ruser=\(requestingUser)")
            + (terminal.isEmpty ? "" : " tty=\(terminal)") + (remote.map { " rhost=\($0)" } ?? "")
    }
}
