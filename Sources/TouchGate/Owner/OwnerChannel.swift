import Glibc
import TouchGateSystem
import TouchGateCore

/// How the watcher, `touchgate event` and `touchgate lock` reach a running `touchgate shell`: a
/// Unix socket named `PID-START` (the owner's pid and start time, as the store records it,
/// ``ShellOwnerRecord``) in the user's private channel directory (``OwnerChannelDirectory``). A
/// client sends one line, `lock`; the owner looks at its session at once (covering the terminal
/// when it is locked) and answers `ok` only then. Nothing sent on it can unlock anything; the
/// owner answers only its own user (and root).
///
/// An `ok` counts only from the owner itself: before it sends anything the client reads the
/// listener's credentials (`SO_PEERCRED`, which the kernel fills in at `listen`, and no one can
/// forge) and goes on only when they are the user's uid and the pid of the owner it means to
/// reach. Any other listener is skipped at once, never waited for. (The channel was once an
/// abstract name, which any account may bind first: issue 30.)
package enum OwnerChannel {
    /// The socket's file name for `owner`.
    static func fileName(_ owner: ProcessIdentity) -> String { "\(owner.pid)-\(owner.startTime)" }

    /// The socket's path for `owner` in `directory`.
    package static func path(owner: ProcessIdentity, directory: FilePath) -> FilePath {
        directory.appending(fileName(owner))
    }

    /// `sun_path` holds 108 bytes with its final NUL.
    private static func address(_ path: FilePath) -> (sockaddr_un, socklen_t)? {
        let bytes = Array(path.string.utf8)
        var address = sockaddr_un()
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            for (index, byte) in bytes.enumerated() { path[index] = byte }
        }
        return (address, socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1))
    }

    /// The owner's listening socket (non-blocking, close-on-exec) at ``path(owner:directory:)``;
    /// `directory` comes from ``OwnerChannelDirectory/prepare(runtimeDirectory:uid:)``. Throws
    /// the reason when it cannot listen: the owner then refuses to start (it never runs a
    /// terminal no one can cover). Sockets in `directory` of owners that are gone are removed.
    ///
    /// The corresponding C functions are `socket`, `bind` and `listen`.
    package static func listen(owner: ProcessIdentity, directory: FilePath) throws(OwnerChannelFailure) -> Int32 {
        let path = path(owner: owner, directory: directory)
        guard let (address, length) = address(path) else {
            throw OwnerChannelFailure("the channel's path \(path) is longer than a Unix socket's 107 bytes")
        }
        removeStale(in: directory)
        // Only a process with this very identity (this one) could have left it.
        unlink(path.string)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw OwnerChannelFailure("cannot make a socket: \(Errno.current)") }
        var bound = address
        let result = withUnsafePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard result == 0, Glibc.listen(descriptor, 16) == 0 else {
            let failure = Errno.current.description
            close(descriptor)
            throw OwnerChannelFailure("cannot listen on \(path): \(failure)")
        }
        return descriptor
    }

    /// Removes the sockets of owners that are gone (a killed owner never removes its own).
    private static func removeStale(in directory: FilePath) {
        for owner in listed(in: directory, uid: geteuid()) where !owner.isAlive {
            unlink(path(owner: owner, directory: directory).string)
        }
    }

    /// Forgets the owner's socket file (the owner ends).
    package static func remove(owner: ProcessIdentity, directory: FilePath) {
        unlink(path(owner: owner, directory: directory).string)
    }

    /// Accepts one waiting client of the same user (or root); -1 when none is waiting.
    package static func accept(_ listening: Int32) -> Int32 {
        while let client = StreamSocket.acceptConnection(listening) {
            if let credentials = peerCredentials(client), credentials.uid == geteuid() || credentials.uid == 0 {
                return client
            }
            close(client)
        }
        return -1
    }

    /// The pid and uid of the process at the other end of `descriptor` (for a client, the one that
    /// called `listen`), from the kernel.
    static func peerCredentials(_ descriptor: Int32) -> (pid: Int32, uid: uid_t)? {
        // struct ucred (pid, uid, gid), which the Glibc module exports only with _GNU_SOURCE.
        var credentials: (Int32, UInt32, UInt32) = (0, UInt32.max, UInt32.max)
        var size = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0 else { return nil }
        return (credentials.0, credentials.1)
    }

    /// What ``lock(_:uid:directories:timeout:)`` found.
    package struct LockResult: Equatable, Sendable {
        /// The owners that answered `ok`: their terminal is covered if their session is locked.
        package var confirmed: [ProcessIdentity] = []
        /// The owners reached that did not answer in time (stuck, or gone meanwhile).
        package var unanswered: [ProcessIdentity] = []
        /// The owners with no socket of their own to reach: none listens at their path, or the
        /// listener there is not the owner (another pid, another uid). Never waited for.
        package var unreachable: [ProcessIdentity] = []

        /// Every owner that did not confirm.
        package var notConfirmed: [ProcessIdentity] { unanswered + unreachable }
    }

    /// Connects to `owner`'s socket in the first of `directories` where the listener is the owner
    /// itself (uid `uid`, the owner's pid, and the owner still alive), else -1.
    private static func connectVerified(_ owner: ProcessIdentity, uid: uid_t, directories: [FilePath]) -> Int32 {
        for directory in directories {
            guard let (address, length) = address(path(owner: owner, directory: directory)) else { continue }
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard descriptor >= 0 else { continue }
            var target = address
            let connected = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
            }
            // A Unix socket connects at once or not at all (a full backlog: EAGAIN).
            guard connected == 0, let peer = peerCredentials(descriptor), peer.uid == uid, peer.pid == owner.pid,
                  owner.isAlive else {
                close(descriptor)
                continue
            }
            return descriptor
        }
        return -1
    }

    /// Sends `lock` to each of `owners` at once, each only once its listener is verified to be
    /// the owner (``connectVerified``), and waits, at most `timeout` seconds in all, for each `ok`.
    /// `directories`: where to look (``OwnerChannelDirectory/current`` unless a test says).
    ///
    /// The corresponding C functions are `socket`, `connect`, `getsockopt`, `write` and `poll`.
    package static func lock(_ owners: [ProcessIdentity], uid: uid_t = geteuid(),
                            directories: [FilePath] = OwnerChannelDirectory.current, timeout: Double) -> LockResult {
        var result = LockResult()
        var waiting: [(ProcessIdentity, Int32)] = []
        for owner in owners {
            let descriptor = connectVerified(owner, uid: uid, directories: directories)
            guard descriptor >= 0 else { result.unreachable.append(owner); continue }
            var line = Array("lock\n".utf8)
            // A failed send is no answer either way: the owner answers as soon as it accepts, and
            // may have answered and closed before this line went out (then `ok` waits to be read).
            _ = send(descriptor, &line, line.count, Int32(MSG_NOSIGNAL))
            waiting.append((owner, descriptor))
        }
        let deadline = monotonicNow() + timeout
        while !waiting.isEmpty {
            let left = deadline - monotonicNow()
            guard left > 0 else { break }
            var descriptors = waiting.map { pollfd(fd: $0.1, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(max(1, (left * 1000).rounded(.up))))
            if ready < 0 && Errno.current != .interrupted { break }
            var still: [(ProcessIdentity, Int32)] = []
            for (index, entry) in waiting.enumerated() {
                guard descriptors[index].revents != 0 else { still.append(entry); continue }
                var answer = [UInt8](repeating: 0, count: 8)
                let count = retryingInterrupts { read(entry.1, &answer, answer.count) }
                if count < 0, errno == EAGAIN { still.append(entry); continue }
                if count >= 3 && answer[0..<3] == [0x6F, 0x6B, 0x0A] {
                    result.confirmed.append(entry.0)
                } else {
                    result.unanswered.append(entry.0)
                }
                close(entry.1)
            }
            waiting = still
        }
        for (owner, descriptor) in waiting {
            close(descriptor)
            result.unanswered.append(owner)
        }
        return result
    }

    /// Signals `owner` (SIGUSR1: look at the session now) when it still runs as `uid`: the
    /// kernel lets no other account send it, so this needs no channel. For the owners
    /// ``lock(_:uid:directories:timeout:)`` could not confirm; the owner answers nothing.
    @discardableResult
    package static func nudge(_ owner: ProcessIdentity, uid: uid_t = geteuid()) -> Bool {
        guard owner.isAlive, realUID(of: owner.pid) == uid else { return false }
        return kill(owner.pid, SIGUSR1) == 0
    }

    /// The real uid of `pid` (`Uid:` in `/proc/PID/status`).
    static func realUID(of pid: Int32, proc: String = "/proc") -> uid_t? {
        guard let bytes = fileContents("\(proc)/\(pid)/status") else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("Uid:") {
            return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { uid_t($0) }
        }
        return nil
    }

    /// Answers a client whose request was carried out.
    package static func acknowledge(_ client: Int32) {
        var line = Array("ok\n".utf8)
        _ = send(client, &line, line.count, Int32(MSG_NOSIGNAL))
        close(client)
    }

    /// The monotonic clock, in seconds.
    static func monotonicNow() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
