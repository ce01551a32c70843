import Glibc
import TouchGateSystem

/// The tmux servers of an account found from their processes, wherever their sockets are: a
/// server started with `-S PATH` outside tmux's own directory (``TmuxSocketDirectory``) that the
/// hooks never recorded (the snippet was sourced into it late) is locked all the same.
///
/// A server is a process named `tmux: server` (tmux sets it) whose real uid is the account's; its
/// socket is the path of the listening Unix socket it holds (its descriptors in `/proc/PID/fd`,
/// named in `/proc/net/unix`). Only servers that run with the same `XDG_RUNTIME_DIR` as the
/// caller count (unset matching unset): the servers of the account's login sessions, not those of
/// a test world, nor a test's watcher reaching the host's (a test gives each world its own).
/// A path is returned only while it is a socket the account owns: no one else's is talked to.
package enum TmuxServerProcesses {
    /// The sockets of `uid`'s tmux servers running with `XDG_RUNTIME_DIR` = `runtimeDirectory`,
    /// sorted. `proc`: for tests (a copy); every other caller reads `/proc`.
    package static func sockets(uid: uid_t, runtimeDirectory: String?, proc: String = "/proc") -> [String] {
        var inodes: Set<String> = []
        for pid in processes(proc) {
            guard let comm = fileContents("\(proc)/\(pid)/comm"), String(decoding: comm, as: UTF8.self) == "tmux: server\n",
                  OwnerChannel.realUID(of: pid, proc: proc) == uid,
                  environmentValue("XDG_RUNTIME_DIR", of: pid, proc: proc) == runtimeDirectory else { continue }
            inodes.formUnion(socketInodes(of: pid, proc: proc))
        }
        guard !inodes.isEmpty, let listing = fileContents("\(proc)/net/unix") else { return [] }
        var found: [String] = []
        for path in listeningPaths(inList: String(decoding: listing, as: UTF8.self), inodes: inodes) where !found.contains(path) {
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK, info.st_uid == uid else { continue }
            found.append(path)
        }
        return found.sorted()
    }

    /// The paths of the listening sockets (flag `__SO_ACCEPTCON`, 0x10000) with one of `inodes` in
    /// a `/proc/net/unix` listing, absolute paths only.
    package static func listeningPaths(inList listing: String, inodes: Set<String>) -> [String] {
        var paths: [String] = []
        // Num RefCount Protocol Flags Type St Inode Path
        for line in listing.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 8, let flags = UInt32(fields[3], radix: 16), flags & 0x10000 != 0,
                  inodes.contains(String(fields[6])), fields[7].hasPrefix("/") else { continue }
            paths.append(String(fields[7]))
        }
        return paths
    }

    private static func processes(_ proc: String) -> [Int32] {
        guard let handle = opendir(proc) else { return [] }
        defer { closedir(handle) }
        var pids: [Int32] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if let pid = Int32(name), pid > 0 { pids.append(pid) }
        }
        return pids
    }

    /// The value of `name` in the environment process `pid` started with (`nil`: unset).
    static func environmentValue(_ name: String, of pid: Int32, proc: String) -> String? {
        guard let bytes = fileContents("\(proc)/\(pid)/environ") else { return nil }
        let prefix = Array((name + "=").utf8)
        for entry in bytes.split(separator: 0, omittingEmptySubsequences: true) where entry.starts(with: prefix) {
            return String(decoding: entry.dropFirst(prefix.count), as: UTF8.self)
        }
        return nil
    }

    /// The inodes of the sockets process `pid` holds (`socket:[N]` links in `/proc/PID/fd`).
    private static func socketInodes(of pid: Int32, proc: String) -> [String] {
        let directory = "\(proc)/\(pid)/fd"
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var inodes: [String] = []
        var buffer = [CChar](repeating: 0, count: 64)
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            guard Int32(name) != nil else { continue }
            let count = readlink(directory + "/" + name, &buffer, buffer.count - 1)
            guard count > 0 else { continue }
            let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target.hasPrefix("socket:["), target.hasSuffix("]") {
                inodes.append(String(target.dropFirst("socket:[".count).dropLast()))
            }
        }
        return inodes
    }
}
