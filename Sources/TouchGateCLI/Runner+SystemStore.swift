import Glibc
import TouchGate

extension Runner {
    /// `--system` selects the ledger for the administrator's commands only.
    func checkSystemStoreCommand() throws {
        guard invocation.system else { return }
        switch invocation.command {
        case .status, .log, .reset, .configGet, .configSet, .help, .version: return
        default: throw UsageError("option '--system' applies to status, log, reset and config only")
        }
    }

    /// Root naming another user (`--user NAME`, no `--store`): that user's own store, found
    /// through their home directory, never a new store under root's home.
    ///
    /// The corresponding C function is `getpwnam`.
    func storeOfUserForRoot() -> String? {
        guard geteuid() == 0, let name = invocation.user ?? environment["TOUCHGATE_USER"], name != invokingUserName() else {
            return nil
        }
        // A name the system does not know (a store's own user, such as a test's) keeps the default store.
        guard let entry = getpwnam(name) else { return nil }
        guard entry.pointee.pw_uid != 0, let directory = entry.pointee.pw_dir, directory.pointee != 0 else { return nil }
        return String(cString: directory) + "/.local/state/touchgate/touchgate.sqlite"
    }

    /// Opening `--user NAME`'s own store as root: the store must exist (nothing is made for
    /// NAME), and the process becomes NAME first, so the store's checks (its directories and
    /// files belong to the invoking user) hold and no file of it is left root's.
    ///
    /// The corresponding C functions are `stat`, `initgroups`, `setgid` and `setuid`.
    func actAsTheUserWhoseStoreThisIs(_ path: String) throws {
        guard !invocation.system, invocation.storePath == nil, (environment["TOUCHGATE_STORE"] ?? "").isEmpty,
              let expected = storeOfUserForRoot(), expected == path, let name = invocation.user ?? environment["TOUCHGATE_USER"],
              let entry = getpwnam(name) else { return }
        var information = stat()
        guard stat(path, &information) == 0 else {
            throw StoreError(path: path, reason: .unavailable, detail: "is not there: \(name.escapedForMessage) has no touchgate store, and none is made for them")
        }
        let (uid, gid) = (entry.pointee.pw_uid, entry.pointee.pw_gid)
        guard initgroups(name, gid) == 0, setgid(gid) == 0, setuid(uid) == 0 else {
            throw StoreError(path: path, reason: .unavailable, detail: "cannot act as \(name.escapedForMessage): \(String(cString: strerror(errno)))")
        }
    }
}
