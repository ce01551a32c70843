import Foundation
import Testing
import TouchGate
import TouchGateSystem

/// A program run at a pseudo-terminal of its own, as a user runs sudo or su at a terminal: it
/// starts a new session whose controlling terminal is the pty's slave (descriptors 0-2), and the
/// test plays the user at the master: reads the screen, types keys, reads the terminal's modes.
final class PseudoTerminal: @unchecked Sendable {
    let master: Int32
    let pid: pid_t
    /// The modes the terminal had before the program started.
    private(set) var initialModes = termios()
    private(set) var screen = ""
    private var status: Int32?

    init(_ command: [String], environment: [String: String]) throws {
        let started: PseudoTerminalProgram
        do {
            started = try PseudoTerminalProgram.start(path: FilePath(command[0]), argv: command,
                                                      environment: environment.map { "\($0.key)=\($0.value)" })
        } catch {
            throw TestFailure("cannot \(error.step): \(error)")
        }
        master = started.master
        pid = started.pid
        initialModes = started.initialModes
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            var ignored: Int32 = 0
            _ = waitpid(pid, &ignored, 0)
        }
        close(master)
    }

    /// Reads what the program wrote so far.
    func pump() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(master, &buffer, buffer.count)
            guard count > 0 else { return }
            screen += String(decoding: buffer[0..<count], as: UTF8.self)
        }
    }

    /// Waits until the screen shows `text`, or fails after `timeout`.
    func waitFor(_ text: String, timeout: TimeInterval = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            pump()
            if screen.contains(text) { return }
            guard Date() < deadline, isRunning else {
                throw TestFailure("'\(text)' never appeared; the screen: \(screen.debugDescription)")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Types `keys` at the terminal.
    func type(_ keys: String) {
        let bytes = Array(keys.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// The terminal's modes now (the master reads the slave's).
    var modes: termios {
        var modes = termios()
        tcgetattr(master, &modes)
        return modes
    }

    var isRunning: Bool {
        if status != nil { return false }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return true }
        status = (raw & 0x7F) != 0 ? 128 + (raw & 0x7F) : (raw >> 8) & 0xFF
        return false
    }

    /// Waits for the program to end and returns its exit status (128 + the signal when killed).
    func wait(timeout: TimeInterval = 30) throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning {
            pump()
            guard Date() < deadline else {
                kill(pid, SIGKILL)
                throw TestFailure("\(pid) did not finish in \(timeout) s; the screen: \(screen.debugDescription)")
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        pump()
        return status!
    }

    /// Whether the terminal's modes are those it had before the program started.
    var modesAsFound: Bool {
        let now = modes
        return now.c_lflag == initialModes.c_lflag && now.c_iflag == initialModes.c_iflag
            && now.c_oflag == initialModes.c_oflag && now.c_cflag == initialModes.c_cflag
    }

    /// The pids of `pid`'s children (from /proc).
    static func children(of pid: pid_t) -> [pid_t] {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { pid_t($0) }
    }
}

extension PAMHost {
    /// Starts `command` (as root, in the namespace) at a pseudo-terminal of its own.
    func terminal(_ command: [String], bus: String? = nil) throws -> PseudoTerminal {
        var environment = self.environment(bus: bus)
        environment["TERM"] = "xterm"
        return try PseudoTerminal(["/bin/bash", Self.harness, path] + command, environment: environment)
    }
}

extension PAMHost {
    /// Starts `pamtester` for tgtest-alice at a pseudo-terminal of its own, with `PAM_TTY` that terminal
    /// and no `PAM_RHOST`, after writing the namespace's /run/utmp: one login record
    /// (`USER_PROCESS`) for the terminal's line, from `remoteHost` (an SSH login) or, when empty,
    /// from no host (a local login). glibc's `getutxent` reads /var/run/utmp, which is /run/utmp.
    func terminalLogin(from remoteHost: String) throws -> PseudoTerminal {
        try terminal(["/bin/bash", "-c", """
            set -eo pipefail
            tty=$(tty); line=${tty#/dev/}
            printf '[7] [%05d] [%-4.4s] [%-32s] [%-32s] [%-256s] [%-15s] [%s]\\n' "$$" "${line#pts}" \(Self.user) "$line" \
                '\(remoteHost.isEmpty ? " " : remoteHost)' 0.0.0.0 "$(date -u +%Y-%m-%dT%H:%M:%S,000000+00:00)" \
                | utmpdump -r -o /run/utmp 2>/dev/null
            exec pamtester -I tty="$tty" tgtest \(Self.user) authenticate
            """])
    }
}
