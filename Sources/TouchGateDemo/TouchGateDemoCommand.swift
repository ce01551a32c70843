import Glibc
import TouchGate
import TouchGateCLI

/// The `touchgate-demo` executable: `touchgate demo` and the `touchgate test-world` commands,
/// which `touchgate` execs with the arguments it got (``Runner/runDemoExecutable()``).
///
/// Why a program of its own: the demo and the test world need the test kit (`TouchGateTesting`:
/// `PAMWorld`, the simulated fingerprint sensor), and the `touchgate` every shell hook, tmux hook
/// and login shell starts should not carry it. This one is installed beside `touchgate-watch` in
/// `PREFIX/libexec/touchgate/`; it parses the same command line as `touchgate` (the same
/// ``CommandTable``), and runs only those commands.
package enum TouchGateDemoCommand {
    /// Runs `touchgate-demo` with `arguments` (without the program name) and returns the exit status.
    package static func main(_ arguments: [String]) -> ExitCode {
        TouchGateCommand.main(arguments) { runner in
            runner.run { runner throws -> ExitCode in
                switch runner.invocation.command {
                case .demo: return try runner.demo()
                case .testWorldCreate(let directory): return runner.testWorldCreate(FilePath(directory))
                case .testWorldRemove(let directory): return runner.testWorldRemove(FilePath(directory))
                case .testWorldSensor(let directory): return runner.testWorldSensor(FilePath(directory))
                case .testWorldScan(let directory, let command): return runner.testWorldScan(FilePath(directory), command)
                default:
                    throw UsageError("\(Runner.demoExecutableName) runs only 'touchgate demo' and 'touchgate test-world'")
                }
            }
        }
    }
}
