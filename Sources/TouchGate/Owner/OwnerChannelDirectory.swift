import Glibc
import TouchGateSystem
import TouchGateCore

/// Where the user's `touchgate shell` owners listen (``OwnerChannel``): a directory only the user
/// can enter, so no other account can bind, replace or even look up a channel there.
///
/// `$XDG_RUNTIME_DIR/touchgate` (pam_systemd's `/run/user/UID`, private to the user) when
/// `XDG_RUNTIME_DIR` is an absolute path to a directory the user owns that no one else may write
/// to, else `/tmp/touchgate-UID`. Each is checked as the store's directories are, and more
/// strictly: a real directory (not a link), owned by the user, with no access at all for group or
/// others. One that fails the check is never used: an owner that finds none refuses to start
/// (``prepare(runtimeDirectory:uid:)``), and a client never looks there.
///
/// `XDG_RUNTIME_DIR` is read from the environment the owner, the watcher and every command already
/// run in, which lets a test give each of its worlds a directory of its own.
package enum OwnerChannelDirectory {
    /// The candidates in order: `$XDG_RUNTIME_DIR/touchgate` (when `runtimeDirectory` qualifies),
    /// then `/tmp/touchgate-UID`.
    package static func candidates(runtimeDirectory: String?, uid: uid_t) -> [FilePath] {
        var found: [FilePath] = []
        if var root = runtimeDirectory, root.hasPrefix("/") {
            while root.count > 1, root.hasSuffix("/") { root.removeLast() }
            var info = stat()
            if lstat(root, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == uid, info.st_mode & 0o022 == 0 {
                found.append(FilePath(root).appending("touchgate"))
            }
        }
        found.append(FilePath("/tmp/touchgate-\(uid)"))
        return found
    }

    /// Why a directory cannot hold the channels, or `nil` when it can.
    package static func refusal(_ path: FilePath, uid: uid_t) -> String? {
        var info = stat()
        guard lstat(path.string, &info) == 0 else { return "cannot use \(path): \(Errno.current)" }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "\(path) is not a directory" }
        guard info.st_uid == uid else { return "\(path) belongs to uid \(info.st_uid), not \(uid)" }
        guard info.st_mode & 0o077 == 0 else {
            return "\(path) is open to other users (mode \(String(info.st_mode & 0o777, radix: 8)))"
        }
        return nil
    }

    /// The directory an owner listens in: the first candidate that exists or can be made, and
    /// passes the check. Throws the reasons, one line, when none does.
    package static func prepare(runtimeDirectory: String?, uid: uid_t) throws(OwnerChannelFailure) -> FilePath {
        var reasons: [String] = []
        for directory in candidates(runtimeDirectory: runtimeDirectory, uid: uid) {
            if mkdir(directory.string, 0o700) != 0, errno != EEXIST {
                reasons.append("cannot create \(directory): \(Errno.current)")
                continue
            }
            if let refusal = refusal(directory, uid: uid) {
                reasons.append(refusal)
                continue
            }
            return directory
        }
        throw OwnerChannelFailure(reasons.joined(separator: "; "))
    }

    /// The directories a client looks in: every candidate that exists and passes the check (an
    /// owner started where `XDG_RUNTIME_DIR` was unset listens in the fallback). Never creates one.
    package static func existing(runtimeDirectory: String?, uid: uid_t) -> [FilePath] {
        candidates(runtimeDirectory: runtimeDirectory, uid: uid).filter { refusal($0, uid: uid) == nil }
    }

    /// ``existing(runtimeDirectory:uid:)`` for this process: its `XDG_RUNTIME_DIR` and effective uid.
    package static var current: [FilePath] {
        existing(runtimeDirectory: ProcessEnvironment.current["XDG_RUNTIME_DIR"], uid: geteuid())
    }
}
