import Glibc
import TouchGate

/// The watcher's ``WatchEffects``: the user's `touchgate shell` owners over their channel, and
/// `tmux lock-server` for every tmux server of this account.
struct TerminalLocks: WatchEffects {
    let store: Store
    let user: String
    let uid: uid_t
    let tmuxTemporaryDirectory: String?

    /// How long the watcher waits for every `tmux lock-server`, and for the owners.
    static let tmuxLockTimeout = 3.0

    /// Has every running `touchgate shell` of `user` look at its session now and cover its
    /// terminal, whatever runs in it; returns when each answered, or after ``tmuxLockTimeout``.
    /// The store's list and the channels in the user's channel directories
    /// (``OwnerChannel/running(uid:directories:)``): an owner is reached even when the store
    /// cannot be read. Only an owner's own `ok` counts (its listener's credentials are checked);
    /// an owner that did not confirm is signalled (``OwnerChannel/nudge(_:uid:)``) and said.
    func coverShellOwners() {
        var owners = ((try? store.shellOwners(user: user)) ?? []).map(\.owner)
        for owner in OwnerChannel.running(uid: uid) where !owners.contains(owner) { owners.append(owner) }
        guard !owners.isEmpty else { return }
        let result = OwnerChannel.lock(owners, uid: uid, timeout: Self.tmuxLockTimeout)
        for owner in result.notConfirmed { OwnerChannel.nudge(owner, uid: uid) }
        if !result.unanswered.isEmpty {
            Watcher.printError("\(result.unanswered.count) touchgate shell owner(s) did not answer within \(Int(Self.tmuxLockTimeout)) s")
        }
        if !result.unreachable.isEmpty {
            Watcher.printError("\(result.unreachable.count) touchgate shell owner(s) have no channel of their own; signalled instead")
        }
    }

    /// The sockets `recorded`, then every other socket of this account's tmux servers: those in
    /// tmux's own directory (``TmuxSocketDirectory``) and those its running servers listen on,
    /// wherever (``TmuxServerProcesses``): a server the hooks never recorded (its sessions began
    /// before the snippet was loaded, or its socket is a `-S PATH` elsewhere) is locked too. Each
    /// once, in order, and only while it is a socket of this account.
    func lockTmuxServers(recorded: [String]) {
        lockTmuxServers(Self.tmuxSockets(recorded: recorded, uid: uid, tmuxTemporaryDirectory: tmuxTemporaryDirectory))
    }

    /// Every tmux socket of `uid` to lock: see ``lockTmuxServers(recorded:)``.
    static func tmuxSockets(recorded: [String], uid: uid_t, tmuxTemporaryDirectory: String?) -> [String] {
        var sockets: [String] = []
        let found = TmuxSocketDirectory.sockets(uid: uid, tmuxTemporaryDirectory: tmuxTemporaryDirectory)
            + TmuxServerProcesses.sockets(uid: uid, runtimeDirectory: ProcessEnvironment.current["XDG_RUNTIME_DIR"])
        for socket in recorded + found where !sockets.contains(socket) {
            var info = stat()
            guard lstat(socket, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK, info.st_uid == uid else { continue }
            sockets.append(socket)
        }
        return sockets
    }

    /// `tmux -S SOCKET lock-server` for each socket, all at once, and waits for every one.
    private func lockTmuxServers(_ sockets: [String]) {
        var children: [pid_t] = []
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // A server that is gone says so; the watcher has nothing to add.
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        for socket in sockets {
            var argv: [UnsafeMutablePointer<CChar>?] = (["tmux", "-S", socket, "lock-server"] as [String]).map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            var pid: pid_t = 0
            if posix_spawnp(&pid, "tmux", &actions, nil, &argv, environ) == 0 { children.append(pid) }
        }
        // A server that does not answer must not hold the watcher (and the machine's sleep) for
        // ever: after a few seconds the tmux clients still waiting are killed.
        let deadline = monotonicSeconds() + Self.tmuxLockTimeout
        while !children.isEmpty {
            children.removeAll { child in
                var status: Int32 = 0
                return waitpid(child, &status, WNOHANG) == child
            }
            guard !children.isEmpty else { break }
            if monotonicSeconds() >= deadline {
                for child in children {
                    kill(child, SIGKILL)
                    var status: Int32 = 0
                    while waitpid(child, &status, 0) < 0, errno == EINTR {}
                }
                Watcher.printError("tmux did not answer lock-server within \(Int(Self.tmuxLockTimeout)) s")
                break
            }
            usleep(1_000)
        }
    }
}
