import Glibc

/// A process touchgate started: every spawn of touchgate goes through ``spawn(_:program:searchPath:environment:fileActions:workingDirectory:newProcessGroup:newSession:inheritSignals:)``.
///
/// One definition of what a spawn is (argv, environment, file actions, working directory,
/// attributes) and, in its extensions, of waiting for the end without busy-waiting (a pidfd, a
/// deadline, SIGKILL and reap), decoding it (``Termination``) and capturing the output. The value
/// is the process id: copying it does not start or own anything more.
package struct ChildProcess: Hashable, Sendable {
    /// The process id.
    package let pid: pid_t

    /// The process `pid` (one this process started, or a program some other code started).
    package init(pid: pid_t) { self.pid = pid }

    /// What the child does with its descriptors before the program runs, in order.
    package enum FileAction: Sendable {
        /// Opens `path` as `descriptor` with `flags` (and `mode` when it creates).
        case open(Int32, FilePath, flags: Int32, mode: mode_t = 0)
        /// Duplicates `from` onto `to` (the copy is not close-on-exec).
        case dup2(Int32, Int32)
        /// Closes `descriptor`.
        case close(Int32)
        /// Closes every descriptor from `lowest` up, even one opened without close-on-exec
        /// (glibc 2.34 and later; otherwise close-on-exec alone keeps them from the child).
        case closeFrom(Int32)

        /// Standard input, output and error on `/dev/null`.
        package static let nullStandardStreams: [FileAction] = [
            .open(STDIN_FILENO, "/dev/null", flags: O_RDONLY),
            .open(STDOUT_FILENO, "/dev/null", flags: O_WRONLY),
            .open(STDERR_FILENO, "/dev/null", flags: O_WRONLY),
        ]
    }

    /// Starts `arguments` (`arguments[0]` the program: a path, or with `searchPath` a name found on
    /// `PATH`) and returns at once; throws the `errno` of a spawn that failed (an exec that fails
    /// is reported so: glibc's `posix_spawn` uses `CLONE_VFORK`).
    ///
    /// - Parameters:
    ///   - program: the program to run when it is not `arguments[0]` (`/proc/self/exe` run as `touchgate`).
    ///   - environment: `NAME=value` entries; `nil` passes this process's environment.
    ///   - fileActions: what the child does with its descriptors first.
    ///   - workingDirectory: where the child starts (`posix_spawn_file_actions_addchdir_np`).
    ///   - newProcessGroup, newSession: as ``SpawnAttributes/clean(newProcessGroup:newSession:inheritSignals:_:)``.
    ///   - inheritSignals: keep this process's signal mask and dispositions (the default, as
    ///     `posix_spawn` with no attributes); false starts every signal at its default.
    ///
    /// The corresponding C functions are `posix_spawn`, `posix_spawnp` and `posix_spawn_file_actions_*`.
    package static func spawn(
        _ arguments: [String], program: FilePath? = nil, searchPath: Bool = false, environment: [String]? = nil,
        fileActions: [FileAction] = [], workingDirectory: FilePath? = nil,
        newProcessGroup: Bool = false, newSession: Bool = false, inheritSignals: Bool = true
    ) throws(Errno) -> ChildProcess {
        precondition(!arguments.isEmpty, "a child process needs a program")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for action in fileActions {
            switch action {
            case .open(let descriptor, let path, let flags, let mode):
                path.withPlatformString { _ = posix_spawn_file_actions_addopen(&actions, descriptor, $0, flags, mode) }
            case .dup2(let from, let to):
                posix_spawn_file_actions_adddup2(&actions, from, to)
            case .close(let descriptor):
                posix_spawn_file_actions_addclose(&actions, descriptor)
            case .closeFrom(let lowest):
                if let addCloseFrom = Self.addCloseFrom { _ = addCloseFrom(&actions, lowest) }
            }
        }
        if let workingDirectory {
            guard let addChdir = Self.addChdir else { throw Errno.notSupported }
            let added = workingDirectory.withPlatformString { addChdir(&actions, $0) }
            guard added == 0 else { throw Errno(rawValue: added) }
        }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup($0) } + [nil] }
        defer { for pointer in argv + (envp ?? []) { free(pointer) } }
        let path = program?.string ?? arguments[0]
        var pid: pid_t = 0
        let status = SpawnAttributes.clean(
            newProcessGroup: newProcessGroup, newSession: newSession, inheritSignals: inheritSignals
        ) { attributes -> Int32 in
            func start(_ variables: UnsafePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
                searchPath
                    ? posix_spawnp(&pid, path, &actions, attributes, argv, variables)
                    : posix_spawn(&pid, path, &actions, attributes, argv, variables)
            }
            guard let envp else { return start(environ) }
            return envp.withUnsafeBufferPointer { start($0.baseAddress) }
        }
        guard status == 0 else { throw Errno(rawValue: status) }
        return ChildProcess(pid: pid)
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34), looked up: the Glibc module does not export it.
    private static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: AddCloseFrom.self)
    }

    /// `posix_spawn_file_actions_addchdir_np` (glibc 2.29), looked up likewise.
    private static let addChdir: AddChdir? = dlsym(nil, "posix_spawn_file_actions_addchdir_np").map {
        unsafeBitCast($0, to: AddChdir.self)
    }
}
