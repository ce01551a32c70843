import Glibc

/// Where the tmux servers of an account listen when nothing names their socket: tmux's own
/// directory `$TMUX_TMPDIR/tmux-UID` (`/tmp/tmux-UID` when it is unset), one socket per server (`default`,
/// and one per `-L NAME`).
///
/// The watcher locks every server it finds there, not only the ones the hooks recorded: a
/// session that existed before the snippet was loaded has no row in the store, and must still be
/// covered on a suspend or a screen lock.
package enum TmuxSocketDirectory {
    /// The directory tmux uses for `uid` with `TMUX_TMPDIR` set to `tmuxTemporaryDirectory`: under
    /// it when it is set (an absolute path), else under `/tmp`, as tmux itself chooses.
    package static func directory(uid: uid_t, tmuxTemporaryDirectory: String?) -> String {
        var root = tmuxTemporaryDirectory.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        while root.count > 1, root.hasSuffix("/") { root.removeLast() }
        return (root == "/" ? "" : root) + "/tmux-\(uid)"
    }

    /// The sockets in ``directory(uid:tmuxTemporaryDirectory:)``, sorted by path. A
    /// directory counts only when `uid` owns it and no one else may write to it (as tmux itself
    /// checks), and an entry only when it is a socket owned by `uid`: nothing someone else
    /// planted is ever talked to.
    package static func sockets(uid: uid_t, tmuxTemporaryDirectory: String?) -> [String] {
        var found: [String] = []
        for directory in [directory(uid: uid, tmuxTemporaryDirectory: tmuxTemporaryDirectory)] {
            var status = stat()
            guard lstat(directory, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == uid,
                  status.st_mode & (S_IWGRP | S_IWOTH) == 0, let handle = opendir(directory) else { continue }
            defer { closedir(handle) }
            while let entry = readdir(handle) {
                let name = withUnsafePointer(to: entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
                }
                guard name != ".", name != ".." else { continue }
                let path = directory + "/" + name
                var socket = stat()
                guard lstat(path, &socket) == 0, socket.st_mode & S_IFMT == S_IFSOCK, socket.st_uid == uid else { continue }
                found.append(path)
            }
        }
        return found.sorted()
    }
}
