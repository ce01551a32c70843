import CProcessControl
import Glibc
import TouchGate

// touchgate-pam-helper: run by pam_touchgate.so with a cleared environment, the module's socket
// as descriptor 3 and /dev/null as 0-2 (PAMHelper). Not dumpable, no core file, and killed with
// the host: a host killed mid-check leaves its try counted and the reader free (the biometric
// worker dies with the helper). It also runs its own biometric workers (`__biometric-worker`).
_ = touchgate_set_dumpable(0)
var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
_ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCore)
// A setuid host (sudo, su) runs the module with the caller's real ids: the helper is root
// through and through, so the ledger's checks, which look at the real ids, see root.
if geteuid() == 0 {
    guard setgroups(0, nil) == 0, setgid(0) == 0, setuid(0) == 0 else { exit(ExitCode.internalError.rawValue) }
}
// Set after the ids change, which clears it.
_ = touchgate_set_parent_death_signal(SIGKILL)
// A host that died before the death signal was set: nobody is waiting for this helper.
if getppid() == 1 { exit(ExitCode.internalError.rawValue) }
let arguments = CommandLine.arguments.dropFirst()
if arguments.first == BiometricWorker.command {
    exit(BiometricWorker.run(Array(arguments.dropFirst())).rawValue)
}
if arguments.elementsEqual(["--man"]) {
    writeAll(STDOUT_FILENO, PAMModuleManPage.roff)
    exit(ExitCode.success.rawValue)
}
guard arguments.isEmpty else { exit(ExitCode.usage.rawValue) }
_ = fcntl(ModuleChannel.descriptor, F_SETFD, FD_CLOEXEC)
exit(PAMHelper.run().rawValue)
