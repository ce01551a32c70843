import Glibc
import TouchGateSystem
import TouchGateCore
import TouchGateStore

extension InvocationContext {
    /// The store path: the system ledger with `--system`, then `--store`, then `TOUCHGATE_STORE`,
    /// then (root naming another user) that user's own store, then the XDG default.
    package var storePath: FilePath {
        get throws(StoreError) {
            if system { return PAMHostRequest.systemStorePath }
            if let path = namedStorePath { return FilePath(path) }
            if let path = storeOfUserForRoot() { return path }
            guard let path = Store.defaultPath() else {
                throw StoreError(path: "(none)", reason: .unavailable, detail: "no HOME or XDG_STATE_HOME to put the store in")
            }
            return path
        }
    }

    /// The store named explicitly: `--store`, else `TOUCHGATE_STORE`; empty means neither.
    package var namedStorePath: String? {
        (storeOption ?? self["TOUCHGATE_STORE"]).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Root naming another user (`--user NAME` or `TOUCHGATE_USER`, no store named): that user's
    /// own store, found through their home directory, never a new store under root's home.
    ///
    /// The corresponding C function is `getpwnam`.
    package func storeOfUserForRoot() -> FilePath? {
        guard effectiveUser == 0, let name = namedUser, name != invokingUserName() else { return nil }
        // A name the system does not know (a store's own user, such as a test's) keeps the default store.
        guard let entry = getpwnam(name) else { return nil }
        guard entry.pointee.pw_uid != 0, let directory = entry.pointee.pw_dir, directory.pointee != 0 else { return nil }
        return FilePath(String(cString: directory) + "/.local/state/touchgate/touchgate.sqlite")
    }

    /// Whether this is an administrator's command: `--system`, or root opening another user's own
    /// store (``storeOfUserForRoot()``, no store named). A store named explicitly is the store's
    /// own user's, whoever runs the command and whatever accounts the host has.
    package var isAdministratorsCommand: Bool {
        if system { return true }
        guard namedStorePath == nil else { return false }
        return storeOfUserForRoot() != nil
    }

    /// Root's drop of privileges: opening `--user NAME`'s own store as root, the store must exist
    /// (nothing is made for NAME), and the process becomes NAME first, so the store's checks (its
    /// directories and files belong to the invoking user) hold and no file of it is left root's.
    /// Nothing happens for any other store.
    ///
    /// The corresponding C functions are `stat`, `initgroups`, `setgid` and `setuid`.
    package func actAsTheUserWhoseStoreThisIs(_ path: FilePath) throws(StoreError) {
        guard !system, namedStorePath == nil, let expected = storeOfUserForRoot(), expected == path,
              let name = namedUser, let entry = getpwnam(name) else { return }
        var information = stat()
        guard stat(path.string, &information) == 0 else {
            throw StoreError(path: path, reason: .unavailable,
                             detail: "is not there: \(name.escapedForMessage) has no touchgate store, and none is made for them")
        }
        let (uid, gid) = (entry.pointee.pw_uid, entry.pointee.pw_gid)
        guard initgroups(name, gid) == 0, setgid(gid) == 0, setuid(uid) == 0 else {
            throw StoreError(path: path, reason: .unavailable,
                             detail: "cannot act as \(name.escapedForMessage): \(Errno.current)")
        }
    }
}
