import Glibc
import TouchGateCore

/// Takes over a terminal for the gate: the alternate screen, cleared, with signal keys and echo off.
///
/// Like the snapshot cover iOS apps draw before the app switcher, nothing of the session stays
/// visible while the gate holds the terminal. ``restore()`` puts the screen and modes back.
package final class TerminalCover {
    let fileDescriptor: Int32
    private var saved = termios()
    private var haveSaved = false
    private var active = false

    package init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    /// Switches to the alternate screen and clears it; turns off ISIG, so Ctrl-C, Ctrl-\ and
    /// Ctrl-Z are plain characters, and echo and canonical input for as long as the cover is on:
    /// nothing typed shows, whatever runs (PAM, a countdown), and the prompts edit the line
    /// themselves (``TerminalPrompts``). What was typed before the cover is discarded.
    ///
    /// The corresponding C functions are `tcgetattr` and `tcsetattr`.
    package func engage() {
        guard !active else { return }
        active = true
        if tcgetattr(fileDescriptor, &saved) == 0 {
            haveSaved = true
            var modes = saved.lineEditingModes(keepingSignalKeys: false)
            tcsetattr(fileDescriptor, TCSAFLUSH, &modes)
        }
        // Alternate screen, cursor home, clear screen and scrollback.
        writeAll(fileDescriptor, "\u{1B}[?1049h\u{1B}[H\u{1B}[2J\u{1B}[3J")
    }

    /// Clears the cover and draws `lines` from the top, each through ``TerminalText``.
    package func draw(_ lines: [String]) {
        var text = "\u{1B}[H\u{1B}[2J"
        for line in lines { text += TerminalText.sanitized(line) + "\r\n" }
        writeAll(fileDescriptor, text)
    }

    /// Redraws line `row` (from 1) in place: the rest of the cover and the cursor stay as they are.
    package func redraw(row: Int, _ line: String) {
        writeAll(fileDescriptor, "\u{1B}7\u{1B}[\(row);1H\u{1B}[2K" + TerminalText.sanitized(line) + "\u{1B}8")
    }

    /// True once the terminal has hung up (its window closed, its tmux server gone): it can no
    /// longer be read or written, and no signal may ever say so.
    package var isHungUp: Bool {
        var modes = termios()
        return tcgetattr(fileDescriptor, &modes) != 0 && (errno == EIO || errno == ENOTTY || errno == EBADF)
    }

    /// Leaves the alternate screen and restores the terminal modes, discarding what was typed at
    /// the cover (it must not reach the session as input).
    package func restore() {
        guard active else { return }
        active = false
        if haveSaved { tcsetattr(fileDescriptor, TCSAFLUSH, &saved) }
        writeAll(fileDescriptor, "\u{1B}[H\u{1B}[2J\u{1B}[?1049l")
    }

    deinit {
        restore()
    }
}
