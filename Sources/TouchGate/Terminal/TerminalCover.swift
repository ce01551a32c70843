import Glibc

/// Takes over a terminal for the gate: the alternate screen, cleared, with signal keys turned off.
///
/// Like the snapshot cover iOS apps draw before the app switcher, nothing of the session stays
/// visible while the gate holds the terminal. ``restore()`` puts the screen and modes back.
public final class TerminalCover {
    let fileDescriptor: Int32
    private var saved = termios()
    private var haveSaved = false
    private var active = false

    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    /// Switches to the alternate screen, clears it, and turns off ISIG so Ctrl-C, Ctrl-\ and
    /// Ctrl-Z are plain characters.
    ///
    /// The corresponding C functions are `tcgetattr` and `tcsetattr`.
    public func engage() {
        guard !active else { return }
        active = true
        if tcgetattr(fileDescriptor, &saved) == 0 {
            haveSaved = true
            var modes = saved
            modes.c_lflag &= ~tcflag_t(ISIG)
            tcsetattr(fileDescriptor, TCSANOW, &modes)
        }
        // Alternate screen, cursor home, clear screen and scrollback.
        writeAll(fileDescriptor, "\u{1B}[?1049h\u{1B}[H\u{1B}[2J\u{1B}[3J")
    }

    /// Clears the cover and draws `lines` from the top.
    public func draw(_ lines: [String]) {
        writeAll(fileDescriptor, "\u{1B}[H\u{1B}[2J" + lines.joined(separator: "\r\n") + "\r\n")
    }

    /// True once the terminal has hung up (its window closed, its tmux server gone): it can no
    /// longer be read or written, and no signal may ever say so.
    public var isHungUp: Bool {
        var modes = termios()
        return tcgetattr(fileDescriptor, &modes) != 0 && (errno == EIO || errno == ENOTTY || errno == EBADF)
    }

    /// Leaves the alternate screen and restores the terminal modes.
    public func restore() {
        guard active else { return }
        active = false
        if haveSaved { tcsetattr(fileDescriptor, TCSANOW, &saved) }
        writeAll(fileDescriptor, "\u{1B}[H\u{1B}[2J\u{1B}[?1049l")
    }

    deinit {
        restore()
    }
}
