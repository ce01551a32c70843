import Glibc
import Testing
@testable import TouchGate
import TouchGateSystem

/// The tmux servers of an account found from their processes: real tmux servers on `-S` sockets
/// outside tmux's directory, told apart by the `XDG_RUNTIME_DIR` they run with.
@Suite struct TmuxServerProcessesTests {
    /// Runs `tmux arguments` with `XDG_RUNTIME_DIR` = `runtime` (and nothing else of this
    /// process's environment but PATH) to its end; its exit status.
    static func tmux(_ arguments: [String], runtime: String) -> Int32 {
        let argv: [UnsafeMutablePointer<CChar>?] = (["tmux"] + arguments).map { strdup($0) } + [nil]
        let environment: [UnsafeMutablePointer<CChar>?] = (["PATH=/usr/bin:/bin", "XDG_RUNTIME_DIR=" + runtime, "TERM=xterm"] as [String])
            .map { strdup($0) } + [nil]
        defer { for pointer in argv + environment { free(pointer) } }
        var pid: pid_t = 0
        guard SpawnAttributes.clean({ posix_spawn(&pid, "/usr/bin/tmux", nil, $0, argv, environment) }) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return status
    }

    @Test func theServersOfTheAccountWithTheSameRuntimeDirectoryAreFoundWhereverTheirSocketIs() throws {
        var template = Array("/tmp/tg-tmuxproc-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        defer { rmdir(directory + "/a"); rmdir(directory + "/b"); rmdir(directory) }
        let (mine, other) = (directory + "/mine.sock", directory + "/other.sock")
        let (runtime, otherRuntime) = (directory + "/a", directory + "/b")
        mkdir(runtime, 0o700)
        mkdir(otherRuntime, 0o700)
        #expect(Self.tmux(["-S", mine, "-f", "/dev/null", "new-session", "-d", "sleep 60"], runtime: runtime) == 0)
        let moved = mine + ".moved"
        defer { _ = Self.tmux(["-S", moved, "kill-server"], runtime: runtime); unlink(moved) }
        #expect(Self.tmux(["-S", other, "-f", "/dev/null", "new-session", "-d", "sleep 60"], runtime: otherRuntime) == 0)
        defer { _ = Self.tmux(["-S", other, "kill-server"], runtime: otherRuntime); unlink(other) }

        #expect(TmuxServerProcesses.sockets(uid: geteuid(), runtimeDirectory: runtime) == [mine])
        #expect(TmuxServerProcesses.sockets(uid: geteuid(), runtimeDirectory: otherRuntime) == [other])
        #expect(TmuxServerProcesses.sockets(uid: geteuid() &+ 1, runtimeDirectory: runtime).isEmpty)
        // A path that is no longer the server's socket is never named (the server still holds the
        // socket, which the kernel lists under the old path).
        #expect(rename(mine, moved) == 0)
        #expect(TmuxServerProcesses.sockets(uid: geteuid(), runtimeDirectory: runtime).isEmpty)
    }

    @Test func onlyListeningSocketsWithAnAbsolutePathAndAKnownInodeCount() {
        let listing = """
            Num       RefCount Protocol Flags    Type St Inode Path
            0000000000000000: 00000002 00000000 00010000 0001 01 100 /tmp/a.sock
            0000000000000000: 00000003 00000000 00000000 0001 03 101 /tmp/connected.sock
            0000000000000000: 00000002 00000000 00010000 0001 01 102 @abstract
            0000000000000000: 00000002 00000000 00010000 0001 01 103 /tmp/unknown.sock
            0000000000000000: 00000002 00000000 00010000 0001 01 104

            """
        #expect(TmuxServerProcesses.listeningPaths(inList: listing, inodes: ["100", "101", "102", "104"]) == ["/tmp/a.sock"])
    }
}
