import Glibc
import Testing
@testable import TouchGate
@testable import TouchGateSystem

/// The owners' channel: sockets in a directory only the user can enter, and an `ok` trusted only
/// from the owner itself (its listener's uid and pid, from the kernel).
@Suite struct OwnerChannelTests {
    /// A private directory of this test's own (0700), removed at the end.
    final class PrivateDirectory {
        let path: String
        init(mode: mode_t = 0o700) throws {
            var template = Array("/tmp/tg-chan-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw Failure("mkdtemp: \(errno)") }
            path = String(cString: made)
            chmod(path, mode)
        }
        deinit {
            if let handle = opendir(path) {
                while let entry = readdir(handle) {
                    let name = withUnsafePointer(to: entry.pointee.d_name) {
                        $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
                    }
                    if name != ".", name != ".." { unlink(path + "/" + name); rmdir(path + "/" + name) }
                }
                closedir(handle)
            }
            rmdir(path)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Answers `ok` to every client of `listening` on a thread of its own, until `stop`.
    final class Answerer: @unchecked Sendable {
        let listening: Int32
        private let stopped = LockedFlag()
        private var thread = pthread_t()
        init(_ listening: Int32) {
            self.listening = listening
            let box = Unmanaged.passRetained(self)
            pthread_create(&thread, nil, { raw in
                let me = Unmanaged<Answerer>.fromOpaque(raw!).takeRetainedValue()
                while !me.stopped.value {
                    var descriptor = pollfd(fd: me.listening, events: Int16(POLLIN), revents: 0)
                    guard poll(&descriptor, 1, 20) > 0 else { continue }
                    let client = OwnerChannel.accept(me.listening)
                    guard client >= 0 else { continue }
                    var line = [UInt8](repeating: 0, count: 8)
                    _ = read(client, &line, line.count)
                    OwnerChannel.acknowledge(client)
                }
                return nil
            }, box.toOpaque())
        }
        func stop() {
            stopped.value = true
            pthread_join(thread, nil)
        }
    }

    final class LockedFlag: @unchecked Sendable {
        private var lock = pthread_mutex_t()
        private var flag = false
        init() { pthread_mutex_init(&lock, nil) }
        var value: Bool {
            get { pthread_mutex_lock(&lock); defer { pthread_mutex_unlock(&lock) }; return flag }
            set { pthread_mutex_lock(&lock); flag = newValue; pthread_mutex_unlock(&lock) }
        }
    }

    @Test func anOwnerListeningInItsDirectoryIsFoundAndConfirmsAndIsGoneOnceRemoved() throws {
        let directory = try PrivateDirectory()
        let me = try #require(ProcessIdentity.current)
        let channel = try OwnerChannel.listen(owner: me, directory: FilePath(directory.path))
        let answerer = Answerer(channel)
        #expect(OwnerChannel.running(uid: geteuid(), directories: [FilePath(directory.path)]) == [me])
        #expect(OwnerChannel.running(uid: geteuid() &+ 1, directories: [FilePath(directory.path)]).isEmpty)
        let result = OwnerChannel.lock([me], directories: [FilePath(directory.path)], timeout: 10)
        answerer.stop()
        #expect(result.confirmed == [me] && result.notConfirmed.isEmpty, "\(result)")
        close(channel)
        OwnerChannel.remove(owner: me, directory: FilePath(directory.path))
        #expect(OwnerChannel.running(uid: geteuid(), directories: [FilePath(directory.path)]).isEmpty)
    }

    /// A listener at an owner's path that is not the owner (another pid) answers `ok` to
    /// everything; its `ok` never counts, and it is not waited for.
    @Test func aListenerThatIsNotTheOwnerIsNeverTrusted() throws {
        let directory = try PrivateDirectory()
        let child = try SleepingChild()
        let owner = try #require(child.identity)
        // This process listens at the child's path.
        let squatter = try OwnerChannel.listen(owner: owner, directory: FilePath(directory.path))
        let answerer = Answerer(squatter)
        defer { answerer.stop(); close(squatter) }
        #expect(OwnerChannel.running(uid: geteuid(), directories: [FilePath(directory.path)]) == [owner])
        let result = OwnerChannel.lock([owner], directories: [FilePath(directory.path)], timeout: 600)
        #expect(result.confirmed.isEmpty && result.unanswered.isEmpty && result.unreachable == [owner], "\(result)")
        // Nor does an owner with no socket at all hold anyone up.
        let gone = OwnerChannel.lock([ProcessIdentity(pid: owner.pid, startTime: owner.startTime &+ 1)],
                                     directories: [FilePath(directory.path)], timeout: 600)
        #expect(gone.unreachable.count == 1, "\(gone)")
    }

    /// Another account's process listening at a path named after itself (pid and start time
    /// right): trusted only by a client of that uid.
    @Test func aListenerOfAnotherUidIsNeverTrusted() throws {
        try #require(geteuid() == 0, "needs root to run a process as another uid")
        let directory = try PrivateDirectory(mode: 0o777)
        let ready = directory.path + "/ready"
        let script = """
            import os, socket, time
            start = open('/proc/self/stat').read().rsplit(')', 1)[1].split()[19]
            s = socket.socket(socket.AF_UNIX)
            s.bind('\(directory.path)/%d-%s' % (os.getpid(), start))
            s.listen(4)
            open('\(ready)', 'w').close()
            while True:
                c, _ = s.accept()
                try:
                    c.recv(16)
                    c.send(b'ok\\n')
                except OSError:
                    pass
                c.close()
            """
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = (["/usr/bin/setpriv", "--reuid", "4243", "--regid", "4243", "--clear-groups",
                                                    "/usr/bin/python3", "-c", script] as [String]).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        try #require(posix_spawn(&pid, "/usr/bin/setpriv", nil, nil, argv, environ) == 0)
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
        for _ in 0..<1000 where access(ready, F_OK) != 0 { usleep(10_000) }
        try #require(access(ready, F_OK) == 0, "the other uid's listener did not start")
        let owner = try #require(OwnerChannel.listed(in: FilePath(directory.path), uid: 4243).first)
        #expect(owner.pid == pid)
        let mine = OwnerChannel.lock([owner], uid: geteuid(), directories: [FilePath(directory.path)], timeout: 600)
        #expect(mine.unreachable == [owner] && mine.confirmed.isEmpty, "\(mine)")
        // The same listener, for a client of its own uid: it does answer (the check is what refused it).
        let theirs = OwnerChannel.lock([owner], uid: 4243, directories: [FilePath(directory.path)], timeout: 30)
        #expect(theirs.confirmed == [owner], "\(theirs)")
    }

    @Test func aDirectoryOthersCanEnterOrThatIsNotTheUsersIsNeverUsed() throws {
        let root = try PrivateDirectory()
        #expect(OwnerChannelDirectory.candidates(runtimeDirectory: root.path, uid: geteuid())
                == [FilePath(root.path + "/touchgate"), "/tmp/touchgate-\(geteuid())"])
        // Not the uid's, or writable by others: only the fallback.
        #expect(OwnerChannelDirectory.candidates(runtimeDirectory: root.path, uid: geteuid() &+ 1) == ["/tmp/touchgate-\(geteuid() &+ 1)"])
        chmod(root.path, 0o777)
        #expect(OwnerChannelDirectory.candidates(runtimeDirectory: root.path, uid: geteuid()) == ["/tmp/touchgate-\(geteuid())"])
        chmod(root.path, 0o700)
        #expect(OwnerChannelDirectory.candidates(runtimeDirectory: "relative", uid: geteuid()) == ["/tmp/touchgate-\(geteuid())"])
        let made = try OwnerChannelDirectory.prepare(runtimeDirectory: root.path, uid: geteuid())
        #expect(made == FilePath(root.path + "/touchgate"))
        #expect(OwnerChannelDirectory.refusal(made, uid: geteuid()) == nil)
        chmod(made.string, 0o750)
        #expect(OwnerChannelDirectory.refusal(made, uid: geteuid())?.contains("open to other users (mode 750)") == true)
        #expect(!OwnerChannelDirectory.existing(runtimeDirectory: root.path, uid: geteuid()).contains(made))
        rmdir(made.string)
        // A link in its place, even to a private directory, is refused.
        let target = try PrivateDirectory()
        symlink(target.path, made.string)
        #expect(OwnerChannelDirectory.refusal(made, uid: geteuid()) == "\(made) is not a directory")
        unlink(made.string)
    }

    @Test func onlyWellFormedSocketNamesNameAnOwner() {
        #expect(OwnerChannel.owner(named: "42-777") == ProcessIdentity(pid: 42, startTime: 777))
        for name in ["42", "42-", "-7", "x-1", "42-7-1", "0-5", "٣-1", "42-+1", "ready"] {
            #expect(OwnerChannel.owner(named: name) == nil, "\(name)")
        }
    }
}
