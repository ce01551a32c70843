import Glibc

extension ChildProcess {
    /// Waits for the child to end and reaps it (`waitpid`, interrupted waits retried).
    /// A child that is not this process's (or reaped already) reads as `.exited(127)`.
    @discardableResult
    package func wait() -> Termination {
        var status: Int32 = 0
        guard case .success = valueOrErrno({ waitpid(pid, &status, 0) }) else { return .exited(127) }
        return Termination(waitStatus: status)
    }

    /// The child's end, reaped, when it has ended; `nil` while it runs, or when it is no child of
    /// this process (any more) (`waitpid(WNOHANG)`).
    package func exitedYet() -> Termination? {
        var status: Int32 = 0
        guard case .success(let waited) = valueOrErrno({ waitpid(pid, &status, WNOHANG) }), waited == pid else { return nil }
        return Termination(waitStatus: status)
    }

    /// Waits for the child to end until `deadline`, and reaps it; `nil` when it still runs then
    /// (not reaped: the caller kills it or waits on). No busy wait: `poll` on a pidfd, or where
    /// the kernel has none (before Linux 5.3), `waitid(WNOWAIT)` on a thread of its own that wakes
    /// the `poll` through a ``SelfPipe``.
    package func wait(until deadline: Deadline) -> Termination? {
        wait(until: deadline, withPidfd: true)
    }

    /// ``wait(until:)``, with `withPidfd` false taking the fallback (for its tests).
    func wait(until deadline: Deadline, withPidfd: Bool) -> Termination? {
        if let done = exitedYet() { return done }
        let ended: Bool
        if withPidfd, let descriptor = Self.pidfdOpen?(pid, 0), descriptor >= 0 {
            ended = Self.pollReadable(descriptor, until: deadline)
            close(descriptor)
        } else {
            ended = waitOnAThread(until: deadline)
        }
        return ended ? wait() : nil
    }

    /// Waits until `deadline`, then SIGKILLs (with `group`, its process group too) and reaps a
    /// child still running: the end of the child either way, and whether the deadline killed it.
    package func wait(until deadline: Deadline, killingGroup group: Bool = false) -> (termination: Termination, killed: Bool) {
        if let termination = wait(until: deadline) { return (termination, false) }
        return (killAndReap(group: group), true)
    }

    /// True when `descriptor` became readable (or hung up) before `deadline`.
    static func pollReadable(_ descriptor: Int32, until deadline: Deadline) -> Bool {
        while true {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            switch valueOrErrno({ poll(&entry, 1, deadline.remainingMilliseconds) }) {
            case .success(let ready) where ready > 0: return true
            case .success: if deadline.hasPassed { return false }
            case .failure: return false
            }
        }
    }

    /// The fallback without pidfds: a thread waits in `waitid(WEXITED | WNOWAIT)` (which leaves
    /// the child to be reaped here) and writes to a self-pipe this thread polls until `deadline`.
    /// The pipe closes when both are done with it, so a thread still waiting never writes to a
    /// descriptor number used again.
    private func waitOnAThread(until deadline: Deadline) -> Bool {
        guard let pipe = try? SelfPipe() else {
            wait()
            return true
        }
        let watch = ExitWatch(pid: pid, pipe: pipe)
        let retained = Unmanaged.passRetained(watch)
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { argument in
            let watch = Unmanaged<ExitWatch>.fromOpaque(argument!).takeRetainedValue()
            var info = siginfo_t()
            _ = valueOrErrno { waitid(P_PID, id_t(watch.pid), &info, WEXITED | WNOWAIT) }
            watch.pipe.wake()
            return nil
        }, retained.toOpaque())
        guard started == 0 else {
            retained.release()
            wait()
            return true
        }
        let ended = Self.pollReadable(pipe.readEnd, until: deadline)
        // A child still running is killed and reaped by the caller; the thread then returns by itself.
        if ended { pthread_join(thread, nil) } else { pthread_detach(thread) }
        return ended
    }

    /// What the waiting thread of ``waitOnAThread(until:)`` holds; closes the pipe when the last holder lets go.
    private final class ExitWatch {
        let pid: pid_t
        let pipe: SelfPipe
        init(pid: pid_t, pipe: SelfPipe) {
            self.pid = pid
            self.pipe = pipe
        }
        deinit { pipe.close() }
    }

    private typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32

    /// `pidfd_open` (glibc 2.36), looked up: the Glibc module does not export it.
    private static let pidfdOpen: PidfdOpen? = dlsym(nil, "pidfd_open").map { unsafeBitCast($0, to: PidfdOpen.self) }
}
