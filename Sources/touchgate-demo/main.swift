import CProcessControl
import Glibc
import TouchGate
import TouchGateCLI
import TouchGateDemo

// `touchgate demo` and `touchgate test-world` exec this with the arguments they got. The demo's
// evaluations start their biometric worker from this executable (/proc/self/exe), as `touchgate` does.
let arguments = commandLineArguments()
if arguments.first == TouchGateCommand.biometricWorkerCommand {
    // Killed with its parent: a worker left behind would hold the reader until the module's timeout.
    _ = touchgate_set_parent_death_signal(SIGKILL)
    exit(TouchGateCommand.biometricWorker(Array(arguments.dropFirst())).rawValue)
}
exit(TouchGateDemoCommand.main(arguments).rawValue)
