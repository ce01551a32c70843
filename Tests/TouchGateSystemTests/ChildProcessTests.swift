import Glibc
import TestSupport
import Testing
@testable import TouchGateSystem

/// ``ChildProcess``: exit decoding, the deadline's SIGKILL and reap, output capture, no zombie
/// left, the spawn's environment, directory and file actions. Every wait runs on a thread of its own.
@Suite struct ChildProcessTests {
    /// Whether `pid` is no child of this process any more (reaped: no zombie left).
    static func isReaped(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD
    }

    @Test func anExitCodeIsDecoded() async throws {
        let termination = try await onAThreadOfItsOwn {
            try ChildProcess.spawn(["/bin/sh", "-c", "exit 7"]).wait()
        }
        #expect(termination == .exited(7))
        #expect(termination.shellStatus == 7)
        #expect(!termination.succeeded)
    }

    @Test func aSignalIsDecoded() async throws {
        let termination = try await onAThreadOfItsOwn {
            try ChildProcess.spawn(["/bin/sh", "-c", "kill -TERM $$"], inheritSignals: false).wait()
        }
        #expect(termination == .signalled(SIGTERM))
        #expect(termination.shellStatus == 128 + SIGTERM)
    }

    @Test func theDeadlineKillsAndReaps() async throws {
        let (pid, ended, killed, seconds) = try await onAThreadOfItsOwn {
            let child = try ChildProcess.spawn(["/bin/sleep", "30"])
            let start = Deadline.now
            let (ended, killed) = child.wait(until: .after(milliseconds: 200), killingGroup: false)
            return (child.pid, ended, killed, Double(Deadline.now.nanoseconds - start.nanoseconds) / 1e9)
        }
        #expect(killed)
        #expect(ended == .signalled(SIGKILL))
        #expect(seconds >= 0.15 && seconds < 10)
        #expect(Self.isReaped(pid))
    }

    @Test func aChildThatEndsBeforeTheDeadlineIsNotKilled() async throws {
        let (ended, killed) = try await onAThreadOfItsOwn {
            try ChildProcess.spawn(["/bin/sh", "-c", "exit 3"]).wait(until: .after(seconds: 10), killingGroup: false)
        }
        #expect(!killed)
        #expect(ended == .exited(3))
    }

    @Test(arguments: [true, false]) func waitingEndsWhenTheChildEnds(withPidfd: Bool) async throws {
        let (ended, pid, seconds) = try await onAThreadOfItsOwn {
            let child = try ChildProcess.spawn(["/bin/sh", "-c", "sleep 0.1; exit 4"])
            let start = Deadline.now
            let ended = child.wait(until: .after(seconds: 20), withPidfd: withPidfd)
            return (ended, child.pid, Double(Deadline.now.nanoseconds - start.nanoseconds) / 1e9)
        }
        #expect(ended == .exited(4))
        #expect(seconds < 10, "the wait ended with the child, not at the deadline")
        #expect(Self.isReaped(pid))
    }

    @Test(arguments: [true, false]) func waitingStopsAtTheDeadline(withPidfd: Bool) async throws {
        let (ended, stillRunning, after) = try await onAThreadOfItsOwn {
            let child = try ChildProcess.spawn(["/bin/sleep", "30"])
            let ended = child.wait(until: .after(milliseconds: 100), withPidfd: withPidfd)
            let stillRunning = kill(child.pid, 0) == 0
            let after = child.killAndReap()
            return (ended, stillRunning, after)
        }
        #expect(ended == nil)
        #expect(stillRunning)
        #expect(after == .signalled(SIGKILL))
    }

    @Test func outputIsCaptured() async throws {
        let (merged, separate) = try await onAThreadOfItsOwn {
            let script = ["/bin/sh", "-c", "echo out; echo err >&2; exit 3"]
            return (try ChildProcess.runCapturingOutput(script, mergingStandardError: true, until: .after(seconds: 10)),
                    try ChildProcess.runCapturingOutput(script, until: .after(seconds: 10)))
        }
        #expect(merged.termination == .exited(3))
        #expect(merged.text == "out\nerr\n")
        #expect(!merged.timedOut)
        #expect(separate.text == "out\n")
        #expect(separate.firstLine == "out")
    }

    @Test func outputCaptureStopsAtTheDeadline() async throws {
        let output = try await onAThreadOfItsOwn {
            try ChildProcess.runCapturingOutput(["/bin/sh", "-c", "echo begun; exec sleep 30"], until: .after(milliseconds: 300))
        }
        #expect(output.timedOut)
        #expect(output.termination == .signalled(SIGKILL))
        #expect(output.text == "begun\n")
    }

    @Test func theFirstLineIsThatOfASuccess() async throws {
        let (line, failed) = try await onAThreadOfItsOwn {
            // A deadline far off: a loaded machine may start the child late.
            (ChildProcess.firstOutputLine(["printf", "one\ntwo\n"], searchPath: true, until: .after(seconds: 60)),
             ChildProcess.firstOutputLine(["/bin/sh", "-c", "echo one; exit 1"], until: .after(seconds: 60)))
        }
        #expect(line == "one")
        #expect(failed == nil)
    }

    @Test func aChildBetweenClosingItsOutputAndExitingIsNotKilled() async throws {
        // coreutils close standard output in an atexit handler: the end of the output comes a
        // moment before the exit, and a kill there turned printf's success into SIGKILL.
        let (line, output) = try await onAThreadOfItsOwn {
            (ChildProcess.firstOutputLine(["/bin/sh", "-c", "echo one; exec >&-; sleep 0.3; exit 0"], until: .after(seconds: 60)),
             try ChildProcess.runCapturingOutput(["/bin/sh", "-c", "echo one; exec >&-; sleep 0.3; exit 3"], until: .after(seconds: 60)))
        }
        #expect(line == "one")
        #expect(output.termination == .exited(3))
        #expect(!output.timedOut)
    }

    @Test func environmentDirectoryAndFileActionsReachTheChild() async throws {
        let path = "/tmp/touchgate-child-process-test-\(getpid())"
        defer { unlink(path) }
        let termination = try await onAThreadOfItsOwn {
            try ChildProcess.spawn(
                ["/bin/sh", "-c", "pwd; echo \"$GREETING\"; echo $#"], environment: ["GREETING=hello"],
                fileActions: [.open(STDOUT_FILENO, FilePath(path), flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600),
                              .dup2(STDOUT_FILENO, STDERR_FILENO)],
                workingDirectory: "/usr"
            ).wait()
        }
        #expect(termination == .exited(0))
        #expect(fileContents(FilePath(path)).map { String(decoding: $0, as: UTF8.self) } == "/usr\nhello\n0\n")
    }

    @Test func aProgramThatIsNotThereIsAnErrno() {
        #expect(throws: Errno.noSuchFileOrDirectory) {
            try ChildProcess.spawn(["/nonexistent/touchgate-no-such-program"])
        }
        #expect(throws: Errno.noSuchFileOrDirectory) {
            try ChildProcess.spawn(["touchgate-no-such-program"], searchPath: true)
        }
    }

    @Test func runningQuietlyReapsAtTheDeadline() async throws {
        let (ended, quick) = try await onAThreadOfItsOwn {
            (ChildProcess.runQuietly(["/bin/sleep", "30"], until: .after(milliseconds: 100)),
             ChildProcess.runQuietly(["true"], searchPath: true))
        }
        #expect(ended == .signalled(SIGKILL))
        #expect(quick == .exited(0))
    }

    @Test func closingFromLeavesNoOtherDescriptor() async throws {
        let pipe = try SelfPipe()
        defer { pipe.close() }
        let end = pipe.writeEnd
        let (kept, closed) = try await onAThreadOfItsOwn {
            // The write end, duplicated to 5 without close-on-exec, reaches the child unless closeFrom(3) closes it.
            let script = ["/bin/sh", "-c", "test -e /proc/self/fd/5"]
            return (try ChildProcess.spawn(script, fileActions: [.dup2(end, 5)]).wait(),
                    try ChildProcess.spawn(script, fileActions: [.dup2(end, 5), .closeFrom(3)]).wait())
        }
        #expect(kept == .exited(0))
        #expect(closed == .exited(1))
    }

    @Test func terminationDecodesWaitStatuses() {
        #expect(ChildProcess.Termination(waitStatus: 0) == .exited(0))
        #expect(ChildProcess.Termination(waitStatus: 0x0300) == .exited(3))
        #expect(ChildProcess.Termination(waitStatus: 9) == .signalled(9))
        #expect(ChildProcess.Termination(waitStatus: 0x80 | 6) == .signalled(6), "a core dump is still the signal")
        #expect(ChildProcess.Termination.exited(0).succeeded)
    }
}
