import Glibc

/// `posix_spawn` attributes for a child that starts clean: no blocked signal and every signal at
/// its default disposition, whatever this process blocks or ignores.
///
/// touchgate ignores SIGINT, SIGQUIT and SIGTSTP while it holds a terminal and relays others to
/// its own handlers; a child that inherited that (the biometric worker, the demo's bus and
/// fprintd) could not be ended by the signals meant for it. ``ChildProcess`` spawns with these.
package enum SpawnAttributes {
    /// POSIX_SPAWN_SETSID, a GNU extension the Glibc module does not export.
    private static let setSession: Int32 = 0x80

    /// Calls `body` with the attributes. The corresponding C functions are `posix_spawnattr_init`,
    /// `posix_spawnattr_setsigmask`, `posix_spawnattr_setsigdefault`, `posix_spawnattr_setpgroup`
    /// and `posix_spawnattr_setflags`.
    ///
    /// - Parameters:
    ///   - newProcessGroup: the child leads a process group of its own (`kill(-pid, …)` ends it
    ///     and whatever it starts).
    ///   - newSession: the child starts a session of its own (`setsid`).
    ///   - inheritSignals: keep this process's mask and dispositions instead (a test that checks
    ///     what a child does with inherited ones).
    package static func clean<Result>(
        newProcessGroup: Bool = false, newSession: Bool = false, inheritSignals: Bool = false,
        _ body: (UnsafePointer<posix_spawnattr_t>) throws -> Result
    ) rethrows -> Result {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var flags: Int32 = 0
        if !inheritSignals {
            var empty = sigset_t()
            sigemptyset(&empty)
            posix_spawnattr_setsigmask(&attributes, &empty)
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for signal in 1..<32 where signal != SIGKILL && signal != SIGSTOP { sigaddset(&defaults, Int32(signal)) }
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            flags |= POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        }
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        if newSession { flags |= setSession }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        return try body(&attributes)
    }
}
