import Glibc

extension termios {
    /// These modes with echo and canonical input off and each byte readable as it is typed
    /// (VMIN 1, VTIME 0); with `keepingSignalKeys` false, ISIG off too.
    ///
    /// The one definition of the modes touchgate holds a terminal in, for ``TerminalCover`` (ISIG
    /// off: Ctrl-C, Ctrl-\ and Ctrl-Z are plain characters) and ``TerminalPrompts`` (ISIG as it
    /// is): nothing typed shows, nothing waits in the kernel's line, and the prompts edit the line
    /// themselves.
    func lineEditingModes(keepingSignalKeys: Bool) -> termios {
        var modes = self
        modes.c_lflag &= ~tcflag_t(ECHO | ECHOE | ECHOK | ECHONL | ICANON)
        if !keepingSignalKeys { modes.c_lflag &= ~tcflag_t(ISIG) }
        withUnsafeMutableBytes(of: &modes.c_cc) { characters in
            characters[Int(VMIN)] = 1
            characters[Int(VTIME)] = 0
        }
        return modes
    }
}
