import Glibc

/// Whether logind reports the lid closed (`LidClosed` on `org.freedesktop.login1.Manager`, read
/// from the system bus), so the reader, which sits under the lid, is not waited for.
///
/// Read by a small exec of systemd's `busctl` (the CLI and the PAM helper do not link libdbus;
/// only `touchgate-watch` does), bounded by a timeout. A bus that cannot be reached, a logind
/// that does not answer, a `busctl` that is not there: the lid counts as open, and the reader is
/// tried as before. The answer only ever skips the finger for the passcode, never the reverse.
public enum LidState {
    static let busctl = "/usr/bin/busctl"

    /// True when logind answers that the lid is closed (docked or not).
    public static func closed() -> Bool {
        guard access(busctl, X_OK) == 0 else { return false }
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { return false }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(pipeEnds[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        // Nothing else of the parent's (the store, the terminal, the module's channel) reaches
        // busctl, even a descriptor opened without close-on-exec (glibc 2.34 and later).
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, STDERR_FILENO + 1)
        }
        let arguments = [busctl, "--system", "--timeout=1", "get-property", "org.freedesktop.login1",
                         "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "LidClosed"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = SpawnAttributes.clean { attributes in
            posix_spawn(&pid, busctl, &actions, attributes, argv, environ)
        }
        close(pipeEnds[1])
        guard spawned == 0 else { return false }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64)
        while output.count < 256 {
            let count = read(pipeEnds[0], &chunk, chunk.count)
            if count > 0 { output += chunk[..<count]; continue }
            if count < 0, errno == EINTR { continue }
            break
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        guard status == 0 else { return false }
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: " \n") == "b true"
    }
}

private extension String {
    func trimmingCharacters(in set: String) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text.removeFirst() }
        while let last = text.last, set.contains(last) { text.removeLast() }
        return String(text)
    }
}
