import Glibc

/// Runs a program found on `PATH` with `arguments`, inheriting the environment, and waits for it.
///
/// Arguments go to the program as they are, never through a shell. The corresponding C
/// functions are `posix_spawnp` and `waitpid`.
@discardableResult
package func runProgram(_ program: String, _ arguments: [String]) -> Int32 {
    var argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    guard posix_spawnp(&pid, program, nil, nil, &argv, environ) == 0 else { return 127 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    // WIFEXITED / WEXITSTATUS are macros Swift cannot import.
    return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
}

/// The absolute path of this executable, so generated snippets call the same binary.
func executablePath() -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return "touchgate" }
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// The first line a program found on `PATH` writes to standard output, when it exits 0 within
/// `timeoutMilliseconds`; `nil` otherwise (its standard error and input are `/dev/null`).
///
/// The corresponding C functions are `posix_spawnp`, `poll` and `waitpid`.
func firstOutputLine(_ program: String, _ arguments: [String], timeoutMilliseconds: Int32 = 1_000) -> String? {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return nil }
    defer { close(ends[0]) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, ends[1], STDOUT_FILENO)
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addclose(&actions, ends[0])
    var argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawnp(&pid, program, &actions, nil, &argv, environ)
    close(ends[1])
    guard spawned == 0 else { return nil }
    var output: [UInt8] = []
    var descriptor = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
    while output.count < 4096, poll(&descriptor, 1, timeoutMilliseconds) > 0 {
        var chunk = [UInt8](repeating: 0, count: 512)
        let count = read(ends[0], &chunk, chunk.count)
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { break }
        output += chunk[..<count]
    }
    kill(pid, SIGKILL)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    guard (status & 0x7F) == 0, (status >> 8) & 0xFF == 0 else { return nil }
    let line = output.split(separator: 0x0A, omittingEmptySubsequences: false).first.map { String(decoding: $0, as: UTF8.self) }
    return line?.isEmpty == false ? line : nil
}
