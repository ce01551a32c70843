import Glibc

extension ChildProcess {
    /// What a child that ran to its end (or to its deadline) wrote, and how it ended.
    package struct Output: Sendable {
        package let termination: Termination
        /// Its standard output (with `mergingStandardError`, its standard error too), up to the limit.
        package let bytes: [UInt8]
        /// Whether the deadline came first (the child was killed).
        package let timedOut: Bool

        /// The bytes as UTF-8 text.
        package var text: String { String(decoding: bytes, as: UTF8.self) }

        /// The first line, when there is a non-empty one.
        package var firstLine: String? {
            let line = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).first.map { String(decoding: $0, as: UTF8.self) }
            return line?.isEmpty == false ? line : nil
        }
    }

    /// Runs `arguments` with standard input from `/dev/null` and standard output into a pipe
    /// (standard error too with `mergingStandardError`, else `/dev/null`), reads it until the
    /// child closes it or `deadline`, then reaps the child, which has until `deadline` to exit
    /// (SIGKILL then). A child that closed its output is never killed before the deadline: it may
    /// be between closing standard output and exiting (coreutils close it in an atexit handler),
    /// and a kill there would turn a success into SIGKILL. Keeps up to `limit` bytes. Throws the
    /// spawn's `errno`.
    package static func runCapturingOutput(
        _ arguments: [String], searchPath: Bool = false, environment: [String]? = nil,
        mergingStandardError: Bool = false, closingOtherDescriptors: Bool = false, newProcessGroup: Bool = false,
        inheritSignals: Bool = true, until deadline: Deadline, limit: Int = 65_536
    ) throws(Errno) -> Output {
        let pipe = try SelfPipe.forOutput()
        var actions: [FileAction] = [
            .open(STDIN_FILENO, "/dev/null", flags: O_RDONLY),
            .dup2(pipe.writeEnd, STDOUT_FILENO),
            mergingStandardError ? .dup2(pipe.writeEnd, STDERR_FILENO) : .open(STDERR_FILENO, "/dev/null", flags: O_WRONLY),
        ]
        if closingOtherDescriptors { actions.append(.closeFrom(STDERR_FILENO + 1)) }
        let child: ChildProcess
        do {
            child = try spawn(arguments, searchPath: searchPath, environment: environment, fileActions: actions,
                              newProcessGroup: newProcessGroup, inheritSignals: inheritSignals)
        } catch {
            pipe.close()
            throw error
        }
        close(pipe.writeEnd)
        defer { close(pipe.readEnd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var endOfFile = false
        while bytes.count < limit, pollReadable(pipe.readEnd, until: deadline) {
            let count = retryingInterrupts { read(pipe.readEnd, &chunk, chunk.count) }
            guard count > 0 else {
                endOfFile = true
                break
            }
            bytes += chunk[..<min(count, limit - bytes.count)]
        }
        if bytes.count >= limit { child.send(SIGKILL, group: newProcessGroup) }
        let (termination, killed) = child.wait(until: endOfFile ? deadline : .now, killingGroup: newProcessGroup)
        return Output(termination: termination, bytes: bytes, timedOut: killed)
    }

    /// Runs `arguments` to its end with its standard streams on `/dev/null`, or kills and reaps it
    /// at `deadline` (`nil`: no deadline); how it ended, or `nil` when it could not start.
    @discardableResult
    package static func runQuietly(
        _ arguments: [String], searchPath: Bool = false, until deadline: Deadline? = nil
    ) -> Termination? {
        guard let child = try? spawn(arguments, searchPath: searchPath, fileActions: FileAction.nullStandardStreams) else { return nil }
        guard let deadline else { return child.wait() }
        return child.wait(until: deadline, killingGroup: false).termination
    }
}

extension ChildProcess {
    /// The first line `arguments` writes to standard output, when it exits 0 (its standard error
    /// and input on `/dev/null`); `nil` otherwise. It is killed at `deadline`.
    package static func firstOutputLine(
        _ arguments: [String], searchPath: Bool = false, until deadline: Deadline = .after(seconds: 1)
    ) -> String? {
        guard let output = try? runCapturingOutput(arguments, searchPath: searchPath, until: deadline, limit: 4096),
              output.termination.succeeded else { return nil }
        return output.firstLine
    }
}
