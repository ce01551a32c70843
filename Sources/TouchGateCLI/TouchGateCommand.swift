import Glibc
import TouchGate
import TouchGateArguments
import TouchGateSystem

/// The `touchgate` tool: parses the arguments, runs one command, and returns the exit status.
package enum TouchGateCommand {
    package static let version = "0.1.0"

    /// The hidden command of the biometric worker (``BiometricWorker``): not a user command, not
    /// parsed, not in the help; only ``WorkerCredentialChecker`` starts it.
    package static let biometricWorkerCommand = BiometricWorker.command

    /// Runs the biometric worker with `arguments` (`SERVICE USER`) and returns its exit status.
    package static func biometricWorker(_ arguments: [String]) -> ExitCode {
        BiometricWorker.run(arguments)
    }

    /// Runs `touchgate` with `arguments` (without the program name) and returns the exit status.
    package static func main(_ arguments: [String]) -> ExitCode {
        main(arguments) { runner in runner.run() }
    }

    /// Parses `arguments` as `touchgate` does (a usage error printed, with its JSON object under
    /// `--json`) and hands the parsed command to `run`: `touchgate`'s runner, or `touchgate-demo`'s.
    package static func main(_ arguments: [String], running run: (inout Runner) -> ExitCode) -> ExitCode {
        let invocation: Invocation
        do throws(UsageError) {
            invocation = try CommandLineParser.parse(arguments)
        } catch {
            printError(error.message)
            if let usage = error.usage { writeLine(STDERR_FILENO, TerminalText.sanitized(usage)) }
            // The command line did not parse, but a `--json` on it still gets its JSON object.
            if arguments.prefix(while: { $0 != "--" }).contains("--json") {
                printErrorObject(error.message, error.exitCode)
            }
            return error.exitCode
        }
        var runner = Runner(invocation: invocation)
        return run(&runner)
    }

    /// The name of the login-shell wrapper (`PREFIX/bin/touchgate-login-shell`, a link to
    /// `touchgate`), for `/etc/shells` and `chsh`.
    package static let loginShellName = "touchgate-login-shell"

    /// Runs `touchgate` started as ``loginShellName`` (`argv[0]`, a login shell's with a leading
    /// `-`): `touchgate shell` running the user's real shell with `arguments` (`-c COMMAND` from
    /// sshd or su), as a login shell when `login`. The real shell is the first line of
    /// `~/.config/touchgate/login-shell` (an absolute path listed in /etc/shells), else
    /// /bin/bash, else /bin/sh. Nothing can cut it short: no rc file runs before the owner.
    package static func loginShell(_ arguments: [String], login: Bool) -> ExitCode {
        let real = InvocationContext().loginShell()
        var runner = Runner(invocation: Invocation(command: .shell(program: [real] + arguments, login: login)))
        return runner.run()
    }
}

/// Writes one line to standard error, prefixed with the program name, through ``TerminalText``
/// (a message may quote a path, a PAM module's text or a value from the command line).
package func printError(_ message: String) {
    writeLine(STDERR_FILENO, TerminalText.sanitized("touchgate: " + message))
}

/// The JSON object a failure prints on standard output under `--json`: `{"error", "exitCode"}`.
func printErrorObject(_ message: String, _ code: ExitCode) {
    writeLine(STDOUT_FILENO, JSONValue.object([
        ("error", .string(message)), ("exitCode", .int(Int(code.rawValue))),
    ]).rendered)
}

package func writeLine(_ descriptor: Int32, _ text: String) {
    writeAll(descriptor, text + "\n")
}
