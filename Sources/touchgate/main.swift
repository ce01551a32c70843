import CProcessControl
import Glibc
import TouchGate
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

keepSecretsOutOfCoreFiles()
let arguments = commandLineArguments()
if arguments.first == TouchGateCommand.biometricWorkerCommand {
    // Killed with its parent: a worker left behind would hold the reader until the module's timeout.
    _ = touchgate_set_parent_death_signal(SIGKILL)
    exit(TouchGateCommand.biometricWorker(Array(arguments.dropFirst())).rawValue)
}
// Started as the login-shell wrapper (a link named touchgate-login-shell, "-touchgate-login-shell" at a login).
let name = CommandLine.arguments.first.map { String($0.split(separator: "/").last ?? "") } ?? ""
if name == TouchGateCommand.loginShellName || name == "-" + TouchGateCommand.loginShellName {
    exit(TouchGateCommand.loginShell(arguments, login: name.hasPrefix("-")).rawValue)
}
exit(TouchGateCommand.main(arguments).rawValue)
