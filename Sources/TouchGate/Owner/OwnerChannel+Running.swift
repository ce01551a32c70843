import Glibc

extension OwnerChannel {
    /// Every `touchgate shell` of `uid` listening now, found by its channel's name in the
    /// kernel's list of Unix sockets (`/proc/net/unix`), not through the store.
    ///
    /// The watcher must reach every owner at a suspend even when the store cannot be read (then
    /// the store's list of owners is gone too): it sends `lock` to the owners this finds as well
    /// as to those the store lists. Abstract names carry no permission, so any process may
    /// listen on a name of this shape; that is harmless here: a `lock` request can unlock
    /// nothing (the owner only looks at its session, and a store it cannot read counts as
    /// locked), and the sender waits for an answer for a bounded time only. Names whose pid does
    /// not run with the start time the name gives are left out.
    /// `path` is for tests (a copy of the list); every other caller reads the kernel's.
    public static func running(uid: uid_t, path: String = "/proc/net/unix") -> [ProcessIdentity] {
        guard let bytes = fileContents(path) else { return [] }
        return owners(inList: String(decoding: bytes, as: UTF8.self), uid: uid).filter(\.isAlive)
    }

    /// The owners of `uid` named in a `/proc/net/unix` listing: listening sockets (flag
    /// `__SO_ACCEPTCON`, 0x10000) whose path is `@touchgate-shell/UID/PID-STARTTIME` (the kernel
    /// shows an abstract name's leading NUL as `@`). Each once, in the listing's order.
    package static func owners(inList listing: String, uid: uid_t) -> [ProcessIdentity] {
        let prefix = "@touchgate-shell/\(uid)/"
        var found: [ProcessIdentity] = []
        // Num RefCount Protocol Flags Type St Inode Path
        for line in listing.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 8, let flags = UInt32(fields[3], radix: 16), flags & 0x10000 != 0,
                  fields[7].hasPrefix(prefix) else { continue }
            let rest = fields[7].dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
            guard rest.count == 2, let pid = Int32(rest[0]), pid > 0, let start = UInt64(rest[1]) else { continue }
            let owner = ProcessIdentity(pid: pid, startTime: start)
            if !found.contains(owner) { found.append(owner) }
        }
        return found
    }
}
