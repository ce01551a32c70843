import Glibc
import TouchGateSystem
import TouchGateStore

/// The ``WatchEffects`` of `touchgate watch` and `touchgate lock`: the user's `touchgate shell`
/// owners over their channel, and `tmux lock-server` (or `lock-session`) for the tmux servers of
/// this account.
package struct TerminalLocks: WatchEffects {
    package let store: Store
    package let user: String
    package let uid: uid_t
    package let tmuxTemporaryDirectory: String?
    /// Says one line on standard error (the watcher's and the CLI's own prefix).
    package let report: (String) -> Void

    package init(store: Store, user: String, uid: uid_t, tmuxTemporaryDirectory: String?, report: @escaping (String) -> Void) {
        self.store = store
        self.user = user
        self.uid = uid
        self.tmuxTemporaryDirectory = tmuxTemporaryDirectory
        self.report = report
    }

    /// How long the watcher waits for every `tmux lock-server`, and for the owners.
    package static let tmuxLockTimeout = 3.0

    /// Has every running `touchgate shell` of `user` (or only those holding session `id`) look at
    /// its session now and cover its terminal, whatever runs in it; returns when each answered, or
    /// after ``tmuxLockTimeout``. For all: the store's list and the channels in the user's channel
    /// directories (``OwnerChannel/running(uid:directories:)``), so an owner is reached even when
    /// the store cannot be read. Only an owner's own `ok` counts (its listener's credentials are
    /// checked); an owner that did not confirm is signalled (``OwnerChannel/nudge(_:uid:)``) and said.
    package func coverShellOwners(session id: String?) -> OwnerChannel.LockResult {
        var owners = ((try? store.shellOwners(user: id == nil ? user : nil, session: id)) ?? []).map(\.owner)
        if id == nil {
            for owner in OwnerChannel.running(uid: uid) where !owners.contains(owner) { owners.append(owner) }
        }
        guard !owners.isEmpty else { return OwnerChannel.LockResult() }
        let result = OwnerChannel.lock(owners, uid: uid, timeout: Self.tmuxLockTimeout)
        for owner in result.notConfirmed { OwnerChannel.nudge(owner, uid: uid) }
        if !result.unanswered.isEmpty {
            report("\(result.unanswered.count) touchgate shell owner(s) did not answer within \(Int(Self.tmuxLockTimeout)) s")
        }
        if !result.unreachable.isEmpty {
            report("\(result.unreachable.count) touchgate shell owner(s) have no channel of their own; signalled instead")
        }
        return result
    }

    /// The sockets `recorded`, then every other socket of this account's tmux servers: those in
    /// tmux's own directory (``TmuxSocketDirectory``) and those its running servers listen on,
    /// wherever (``TmuxServerProcesses``): a server the hooks never recorded (its sessions began
    /// before the snippet was loaded, or its socket is a `-S PATH` elsewhere) is locked too. Each
    /// once, in order, and only while it is a socket of this account. Returns the sockets.
    package func lockTmuxServers(recorded: [String]) -> [String] {
        let sockets = Self.tmuxSockets(recorded: recorded, uid: uid, tmuxTemporaryDirectory: tmuxTemporaryDirectory)
        runTmux(sockets.map { ["-S", $0, "lock-server"] }, what: "lock-server")
        return sockets
    }

    /// `tmux lock-session` of tmux session `id` (`tmux-<server pid>-$<n>`) through `socket`,
    /// only while it is a socket of this account; returns whether it was sent.
    package func lockTmuxSession(_ id: String, socket: String) -> Bool {
        guard id.hasPrefix("tmux-"), let dollar = id.lastIndex(of: "$"), Self.isOwnSocket(FilePath(socket), uid: uid) else { return false }
        runTmux([["-S", socket, "lock-session", "-t", String(id[dollar...])]], what: "lock-session")
        return true
    }

    /// Every tmux socket of `uid` to lock: see ``lockTmuxServers(recorded:)``.
    static func tmuxSockets(recorded: [String], uid: uid_t, tmuxTemporaryDirectory: String?) -> [String] {
        var sockets: [String] = []
        let found = TmuxSocketDirectory.sockets(uid: uid, tmuxTemporaryDirectory: tmuxTemporaryDirectory)
            + TmuxServerProcesses.sockets(uid: uid, runtimeDirectory: ProcessEnvironment.current["XDG_RUNTIME_DIR"])
        for socket in recorded + found where !sockets.contains(socket) && isOwnSocket(FilePath(socket), uid: uid) {
            sockets.append(socket)
        }
        return sockets
    }

    private static func isOwnSocket(_ path: FilePath, uid: uid_t) -> Bool {
        var info = stat()
        return path.isAbsolute && lstat(path.string, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK && info.st_uid == uid
    }

    /// `tmux ARGUMENTS` for each of `commands`, all at once, and waits for every one.
    private func runTmux(_ commands: [[String]], what: String) {
        // A server that is gone says so; the caller has nothing to add.
        let children = commands.compactMap { arguments in
            try? ChildProcess.spawn(["tmux"] + arguments, searchPath: true, fileActions: ChildProcess.FileAction.nullStandardStreams)
        }
        // A server that does not answer must not hold the watcher (and the machine's sleep) for
        // ever: after a few seconds the tmux clients still waiting are killed.
        let deadline = Deadline.after(seconds: Self.tmuxLockTimeout)
        let killed = children.map { $0.wait(until: deadline, killingGroup: false).killed }
        if killed.contains(true) {
            report("tmux did not answer \(what) within \(Int(Self.tmuxLockTimeout)) s")
        }
    }
}
