import Glibc
import TouchGate

extension Runner {
    /// Why the biometric factor is not available for `user`, when its stack is a fingerprint
    /// stack (`pam_fprintd`): one clause for ``outcome(_:policy:extra:)``'s line, or `nil`.
    func readerDiagnosis(user: String, biometricService: String) -> String? {
        guard let path = credentialChecker.servicePath(biometricService),
              let stack = readSmallFile(path) else { return nil }
        // The module's word as the stack names it: a path, or a name in libpam's directory.
        var module: String?
        for line in stack.split(separator: "\n") where line.drop(while: { $0 == " " || $0 == "\t" }).first != "#" {
            if let word = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first(where: { $0.contains("pam_fprintd") }) {
                module = String(word)
                break
            }
        }
        guard let module else { return nil }
        let candidates = module.hasPrefix("/") ? [module] : ["/usr/lib/x86_64-linux-gnu/security", "/lib/x86_64-linux-gnu/security",
            "/usr/lib/aarch64-linux-gnu/security", "/lib/aarch64-linux-gnu/security", "/usr/lib/security", "/lib/security"]
            .map { $0 + "/" + module }
        let found = candidates.contains { access($0, R_OK) == 0 }
        let list = captureOutput("fprintd-list", [user], seconds: 5)
        return ReaderDiagnosis.first(listStatus: list?.status, listOutput: list?.output ?? "", user: user,
                                     module: module, moduleFound: found)?.text
    }
}

/// The text of a small file (up to 64 KiB), or `nil`.
func readSmallFile(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: 65_536)
    let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
    guard count >= 0 else { return nil }
    return String(decoding: bytes[..<count], as: UTF8.self)
}

/// Runs `program` (found on `PATH`) with `arguments`, standard input from `/dev/null`, and
/// returns its exit status and what it wrote on standard output and error (up to 64 KiB);
/// `nil` when it cannot start. Killed after `seconds`.
func captureOutput(_ program: String, _ arguments: [String], seconds: Int) -> (status: Int32, output: String)? {
    var pipeEnds: [Int32] = [0, 0]
    guard pipe(&pipeEnds) == 0 else { return nil }
    for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDOUT_FILENO)
    posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDERR_FILENO)
    var argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawnp(&pid, program, &actions, nil, &argv, environ)
    close(pipeEnds[1])
    defer { close(pipeEnds[0]) }
    guard spawned == 0 else { return nil }
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    var remaining = Int32(seconds * 1000)
    var start = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    while remaining > 0 {
        var descriptor = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, remaining)
        if ready < 0, errno == EINTR { continue }
        guard ready > 0 else { break }
        let count = buffer.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress!, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { break }
        if output.count < 65_536 { output += buffer[..<count] }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        remaining = Int32(seconds * 1000) - Int32((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1_000_000)
    }
    var status: Int32 = 0
    if waitpid(pid, &status, WNOHANG) != pid {
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    }
    let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    // 127: the shell convention posix_spawnp does not follow; a program that is missing fails to spawn.
    return (code, String(decoding: output, as: UTF8.self))
}
