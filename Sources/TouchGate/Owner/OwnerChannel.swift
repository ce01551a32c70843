import Glibc

/// How the watcher and `touchgate event` reach a running `touchgate shell`: a Unix socket in
/// Linux's abstract namespace, named by the owner's uid, pid and start time, so a name can only
/// be the process the store recorded (``ShellOwnerRecord``). A client sends one line, `lock`; the
/// owner looks at its session at once (covering the terminal when it is locked) and answers `ok`
/// only then. Nothing sent on it can unlock anything; the owner answers only its own user (and root).
public enum OwnerChannel {
    static func name(uid: uid_t, owner: ProcessIdentity) -> [UInt8] {
        [0] + Array("touchgate-shell/\(uid)/\(owner.pid)-\(owner.startTime)".utf8)
    }

    private static func address(_ name: [UInt8]) -> (sockaddr_un, socklen_t) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            for (index, byte) in name.prefix(path.count).enumerated() { path[index] = byte }
        }
        let length = MemoryLayout<sa_family_t>.size + min(name.count, MemoryLayout.size(ofValue: address.sun_path))
        return (address, socklen_t(length))
    }

    /// The owner's listening socket (non-blocking, close-on-exec), or -1.
    ///
    /// The corresponding C functions are `socket`, `bind` and `listen`.
    public static func listen(owner: ProcessIdentity) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { return -1 }
        var (address, length) = address(name(uid: getuid(), owner: owner))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0, Glibc.listen(descriptor, 16) == 0 else {
            close(descriptor)
            return -1
        }
        return descriptor
    }

    /// Accepts one waiting client of the same user (or root); -1 when none is waiting.
    public static func accept(_ listening: Int32) -> Int32 {
        while true {
            let client = Glibc.accept(listening, nil, nil)
            guard client >= 0 else { return -1 }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            // struct ucred (pid, uid, gid), which the Glibc module exports only with _GNU_SOURCE.
            var credentials: (Int32, UInt32, UInt32) = (0, UInt32.max, UInt32.max)
            var size = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
            if getsockopt(client, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0,
               credentials.1 == getuid() || credentials.1 == 0 {
                return client
            }
            close(client)
        }
    }

    /// Sends `lock` to each of `owners` at once and waits, at most `timeout` seconds in all, for
    /// each `ok`. Returns the owners that did not answer in time (gone, or stuck).
    ///
    /// The corresponding C functions are `socket`, `connect`, `write` and `poll`.
    public static func lock(_ owners: [ProcessIdentity], uid: uid_t = getuid(), timeout: Double) -> [ProcessIdentity] {
        var waiting: [(ProcessIdentity, Int32)] = []
        var unanswered: [ProcessIdentity] = []
        for owner in owners {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { unanswered.append(owner); continue }
            var (address, length) = address(name(uid: uid, owner: owner))
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
            }
            guard connected == 0 else {
                close(descriptor)
                unanswered.append(owner)
                continue
            }
            var line = Array("lock\n".utf8)
            _ = send(descriptor, &line, line.count, Int32(MSG_NOSIGNAL))
            waiting.append((owner, descriptor))
        }
        let deadline = monotonicNow() + timeout
        while !waiting.isEmpty {
            let left = deadline - monotonicNow()
            guard left > 0 else { break }
            var descriptors = waiting.map { pollfd(fd: $0.1, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(max(1, (left * 1000).rounded(.up))))
            if ready < 0 && errno != EINTR { break }
            var still: [(ProcessIdentity, Int32)] = []
            for (index, entry) in waiting.enumerated() {
                guard descriptors[index].revents != 0 else { still.append(entry); continue }
                var answer = [UInt8](repeating: 0, count: 8)
                let count = read(entry.1, &answer, answer.count)
                if count < 3 || answer[0..<3] != [0x6F, 0x6B, 0x0A] { unanswered.append(entry.0) }
                close(entry.1)
            }
            waiting = still
        }
        for (owner, descriptor) in waiting {
            close(descriptor)
            unanswered.append(owner)
        }
        return unanswered
    }

    /// Answers a client whose request was carried out.
    public static func acknowledge(_ client: Int32) {
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
