import Glibc

/// Runs a program found on `PATH` with `arguments`, inheriting the environment, and waits for it.
///
/// Arguments go to the program as they are, never through a shell. The corresponding C
/// functions are `posix_spawnp` and `waitpid`.
@discardableResult
func runProgram(_ program: String, _ arguments: [String]) -> Int32 {
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

/// `text` quoted for a POSIX shell: single quotes, with embedded ones spliced in.
func shellQuoted(_ text: String) -> String {
    "'" + text.replacingEvery("'", with: "'\\''") + "'"
}
