import Glibc
import TouchGateSystem

extension OwnerChannel {
    /// Every `touchgate shell` of `uid` with a socket in `directories` now, found by the sockets'
    /// names, not through the store.
    ///
    /// The watcher must reach every owner at a suspend even when the store cannot be read (then
    /// the store's list of owners is gone too): it sends `lock` to the owners this finds as well
    /// as to those the store lists. The directories are the user's own
    /// (``OwnerChannelDirectory``), and ``lock(_:uid:directories:timeout:)`` checks each
    /// listener's credentials all the same. Owners no longer running are left out.
    package static func running(uid: uid_t = geteuid(), directories: [FilePath] = OwnerChannelDirectory.current) -> [ProcessIdentity] {
        var found: [ProcessIdentity] = []
        for directory in directories {
            for owner in listed(in: directory, uid: uid) where owner.isAlive && !found.contains(owner) { found.append(owner) }
        }
        return found
    }

    /// The owners named by the sockets of `uid` in `directory` (`PID-START`), in name order.
    package static func listed(in directory: FilePath, uid: uid_t) -> [ProcessIdentity] {
        guard let handle = opendir(directory.string) else { return [] }
        defer { closedir(handle) }
        var found: [(String, ProcessIdentity)] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            guard let owner = owner(named: name) else { continue }
            var info = stat()
            guard lstat(directory.appending(name).string, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK, info.st_uid == uid else { continue }
            found.append((name, owner))
        }
        return found.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The owner a socket's file name `PID-START` names, or `nil`.
    package static func owner(named name: String) -> ProcessIdentity? {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let pid = Int32(parts[0]), pid > 0, let start = UInt64(parts[1]) else { return nil }
        return ProcessIdentity(pid: pid, startTime: start)
    }
}
