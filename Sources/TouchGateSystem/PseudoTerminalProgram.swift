import Glibc

/// A program started on a pseudo-terminal of its own: the master end (non-blocking,
/// close-on-exec) and the program, the leader of a new session whose controlling terminal is
/// the slave end (descriptors 0-2), every signal at its default, as a terminal emulator starts
/// a shell.
///
/// One definition for `touchgate shell` (its program) and for the tests (a program at a
/// terminal the test holds), so both open and start it the same way.
package struct PseudoTerminalProgram {
    package let master: Int32
    package let pid: pid_t
    /// The terminal's modes before the program started (the pty's defaults).
    package let initialModes: termios

    /// An `errno` value of the step that failed, as a Swift error.
    package struct Failure: Error, CustomStringConvertible {
        package let code: Int32
        package let step: String
        package var description: String { Errno(rawValue: code).description }
    }

    /// Opens a pseudo-terminal (of `size`, when given) and starts `argv` (the program at `path`)
    /// on it with `environment` (`NAME=value` each); throws the `errno` of the step that failed.
    ///
    /// The corresponding C functions are `posix_openpt` (`/dev/ptmx`), `unlockpt`, `ptsname`
    /// (their ioctls), `ioctl(TIOCSWINSZ)` and `posix_spawn` (with `POSIX_SPAWN_SETSID`: the
    /// slave, opened after `setsid` without `O_NOCTTY`, becomes the controlling terminal).
    package static func start(path: FilePath, argv: [String], environment: [String],
                              size: winsize? = nil) throws(Failure) -> PseudoTerminalProgram {
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw Failure(code: errno, step: "open /dev/ptmx") }
        // unlockpt and ptsname (the Glibc module exports neither without _XOPEN_SOURCE): the
        // ioctls they are made of. grantpt does nothing on Linux's devpts.
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard ioctl(master, Self.setLock, &unlock) == 0, ioctl(master, Self.getNumber, &number) == 0 else {
            let error = errno
            close(master)
            throw Failure(code: error, step: "unlock the pseudo-terminal")
        }
        let name = "/dev/pts/\(number)"
        if var windowSize = size { _ = ioctl(master, UInt(TIOCSWINSZ), &windowSize) }
        var modes = termios()
        tcgetattr(master, &modes)
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(
                argv, program: path, environment: environment,
                fileActions: [.open(0, FilePath(name), flags: O_RDWR), .dup2(0, 1), .dup2(0, 2)],
                newSession: true, inheritSignals: false)
        } catch {
            close(master)
            throw Failure(code: error.rawValue, step: "start \(path)")
        }
        let pid = child.pid
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        return PseudoTerminalProgram(master: master, pid: pid, initialModes: modes)
    }

    /// `TIOCSPTLCK` and `TIOCGPTN` (`_IOW('T', 0x31, int)`, `_IOR('T', 0x30, unsigned int)`).
    private static let setLock: UInt = 0x4004_5431
    private static let getNumber: UInt = 0x8004_5430
}
