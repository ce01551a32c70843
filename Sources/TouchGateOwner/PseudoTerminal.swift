import Glibc
import TouchGate
import TouchGateSystem

/// The pseudo-terminal `touchgate shell` runs its program on: the master end (kept by the
/// owner) and the program, started by ``PseudoTerminalProgram`` as the leader of a session of
/// its own whose controlling terminal is the slave end, as a terminal emulator starts a shell.
struct PseudoTerminal {
    let master: Int32
    let program: pid_t

    /// The size of terminal `descriptor` (rows, columns), or 24×80 when it has none.
    ///
    /// The corresponding C function is `ioctl(TIOCGWINSZ)`.
    static func size(of descriptor: Int32) -> winsize {
        var size = winsize()
        if ioctl(descriptor, UInt(TIOCGWINSZ), &size) != 0 || size.ws_row == 0 || size.ws_col == 0 {
            size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
        }
        return size
    }

    /// Opens a pseudo-terminal of size `size` and starts `argv[0]` (the path `path`) on it with
    /// `environment`, every signal at its default; throws the `errno` of the step that failed.
    static func start(path: FilePath, argv: [String], environment: [String], size: winsize) throws -> PseudoTerminal {
        let started = try PseudoTerminalProgram.start(path: path, argv: argv, environment: environment, size: size)
        return PseudoTerminal(master: started.master, program: started.pid)
    }

    /// Gives the program's terminal the size `size` (the kernel sends its foreground SIGWINCH).
    func resize(_ size: winsize) {
        var windowSize = size
        _ = ioctl(master, UInt(TIOCSWINSZ), &windowSize)
    }
}
