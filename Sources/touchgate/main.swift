import CProcessControl
import Glibc
import TouchGateCLI

/// Keeps answers out of core files and other processes' reach, before anything is read: the
/// process is not dumpable (no core file, no `ptrace` or `/proc/PID/mem` by same-user
/// processes without CAP_SYS_PTRACE) and its core size limit is 0, also for the children PAM
/// modules start. Many commands prompt, and the gate's fast path pays two system calls for it.
///
/// The corresponding C functions are `prctl(PR_SET_DUMPABLE)` and `setrlimit(RLIMIT_CORE)`.
func keepSecretsOutOfCoreFiles() {
    _ = touchgate_set_dumpable(0)
    var none = rlimit(rlim_cur: 0, rlim_max: 0)
    _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &none)
}

/// The arguments, without the program name.
///
/// Swift finds `argv` by walking back from `environ` to the start of the initial stack; when a
/// preloaded library's constructor has already moved `environ` (pam_wrapper's `setenv` does, and
/// with `--static-swift-stdlib` the runtime looks only after it), Swift sees no arguments at all.
/// Then they are read from `/proc/self/cmdline`, which the kernel keeps as `execve` passed them.
func commandLineArguments() -> [String] {
    if CommandLine.argc > 0 { return Array(CommandLine.arguments.dropFirst()) }
    guard let file = fopen("/proc/self/cmdline", "re") else { return [] }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count <= 0 { break }
        bytes += chunk[..<count]
    }
    // Each argument ends with a NUL, so the last piece of the split is always empty.
    let words = bytes.split(separator: 0, omittingEmptySubsequences: false).dropLast()
    return words.dropFirst().map { String(decoding: $0, as: UTF8.self) }
}

keepSecretsOutOfCoreFiles()
let arguments = commandLineArguments()
if arguments.first == TouchGateCommand.biometricWorkerCommand {
    // Killed with its parent: a worker left behind would hold the reader until the module's timeout.
    _ = touchgate_set_parent_death_signal(SIGKILL)
    exit(TouchGateCommand.biometricWorker(Array(arguments.dropFirst())))
}
exit(TouchGateCommand.main(arguments).rawValue)
