import Glibc
import TouchGate

/// The pseudo-terminal `touchgate shell` runs its program on: the master end (kept by the
/// owner) and the program, started as the leader of a session of its own whose controlling
/// terminal is the slave end, as a terminal emulator starts a shell.
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
    ///
    /// The corresponding C functions are `posix_openpt` (`/dev/ptmx`), `unlockpt`, `ptsname`
    /// (their ioctls), `ioctl(TIOCSWINSZ)` and `posix_spawn` (with `POSIX_SPAWN_SETSID`: the slave, opened after
    /// `setsid`, becomes the program's controlling terminal).
    static func start(path: String, argv: [String], environment: [String], size: winsize) throws -> PseudoTerminal {
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw Errno(errno) }
        // unlockpt and ptsname (the Glibc module exports neither without _XOPEN_SOURCE): the
        // ioctls they are made of. grantpt does nothing on Linux's devpts.
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard ioctl(master, Self.setLock, &unlock) == 0, ioctl(master, Self.getNumber, &number) == 0 else {
            let error = errno
            close(master)
            throw Errno(error)
        }
        let name = "/dev/pts/\(number)"
        var windowSize = size
        _ = ioctl(master, UInt(TIOCSWINSZ), &windowSize)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, name, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        var arguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var variables: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in arguments { free(pointer) }
            for pointer in variables { free(pointer) }
        }
        var pid: pid_t = 0
        let status = SpawnAttributes.clean(newSession: true) { attributes in
            posix_spawn(&pid, path, &actions, attributes, &arguments, &variables)
        }
        guard status == 0 else {
            close(master)
            throw Errno(status)
        }
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        return PseudoTerminal(master: master, program: pid)
    }

    /// `TIOCSPTLCK` and `TIOCGPTN` (`_IOW('T', 0x31, int)`, `_IOR('T', 0x30, unsigned int)`).
    private static let setLock: UInt = 0x4004_5431
    private static let getNumber: UInt = 0x8004_5430

    /// Gives the program's terminal the size `size` (the kernel sends its foreground SIGWINCH).
    func resize(_ size: winsize) {
        var windowSize = size
        _ = ioctl(master, UInt(TIOCSWINSZ), &windowSize)
    }
}

/// An `errno` value, as a Swift error.
struct Errno: Error, CustomStringConvertible {
    let code: Int32
    init(_ code: Int32) { self.code = code }
    var description: String { String(cString: strerror(code)) }
}
