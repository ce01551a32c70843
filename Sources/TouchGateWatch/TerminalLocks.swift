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
    /// The store's list and the channels listening now (``OwnerChannel/running(uid:path:)``):
    /// an owner is reached even when the store cannot be read.
    func coverShellOwners() {
        var owners = ((try? store.shellOwners(user: user)) ?? []).map(\.owner)
        for owner in OwnerChannel.running(uid: geteuid()) where !owners.contains(owner) { owners.append(owner) }
        guard !owners.isEmpty else { return }
        let late = OwnerChannel.lock(owners, uid: geteuid(), timeout: Self.tmuxLockTimeout)
        if !late.isEmpty {
            Watcher.printError("\(late.count) touchgate shell owner(s) did not answer within \(Int(Self.tmuxLockTimeout)) s")
        }
    }

    /// The sockets `recorded`, then every other socket of this account's tmux servers in tmux's
    /// own directory (``TmuxSocketDirectory``): a server the hooks never recorded (its sessions
    /// began before the snippet was loaded) is locked too. Each once, in order.
    func lockTmuxServers(recorded: [String]) {
        var sockets: [String] = []
        let found = TmuxSocketDirectory.sockets(uid: uid, tmuxTemporaryDirectory: tmuxTemporaryDirectory)
        for socket in recorded + found where !sockets.contains(socket) { sockets.append(socket) }
        lockTmuxServers(sockets)
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
