import Glibc
import TouchGate
import TouchGateSystem

extension Runner {
    /// `--system` selects the ledger for the administrator's commands only.
    func checkSystemStoreCommand() throws {
        guard invocation.system else { return }
        switch invocation.command {
        case .status, .log, .reset, .lockdown, .configGet, .configSet, .help, .version: return
        default: throw UsageError("option '--system' applies to status, log, reset, lockdown and config only")
        }
    }
}

extension Runner {
    /// With `--system`, `name` must be an account or a user the ledger holds something of: a
    /// mistyped name is an error (exit 65), never a row of zeros.
    ///
    /// The corresponding C function is `getpwnam`.
    func checkLedgerUser(_ name: String, in store: Store) throws {
        guard invocation.system, getpwnam(name) == nil, !(try store.knows(user: name)) else { return }
        throw UsageError("unknown user '\(name.escapedForMessage)': no such account, and the ledger holds nothing of them",
                         exitCode: .badValue)
    }

    /// A system policy that could not be used (``SystemPolicy/problem``): the settings commands
    /// (`status`, `config`) stop with it (exit 74), since what they would show or change is not
    /// what the file says; the others say it on standard error and go on under the strictest
    /// defaults; the hooks, which run unattended in tmux and the shell, go on silently.
    func reportSystemPolicyProblem(of store: Store) throws {
        guard let problem = store.systemPolicy.problem else { return }
        switch invocation.command {
        case .status, .configGet, .configSet: throw UsageError(problem, exitCode: .store)
        case .gate, .tmuxHook, .event, .shell: return
        default: printError(problem)
        }
    }

    /// `touchgate --system status` without a user: every user of the ledger with a failure
    /// counted (``StatusReport/ledger(_:)``).
    func ledgerStatus(_ store: Store) throws -> ExitCode {
        let report = try StatusReport.ledger(store)
        emit(report.json, text: report.text)
        return .success
    }
}
