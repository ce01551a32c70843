import Glibc
import TouchGate

extension Runner {
    /// `touchgate lock [SESSION]`: every session of the user (or `session` alone) locked and
    /// covered now, by the watcher's own screen-lock path (``WatchSessions`` with
    /// ``TerminalLocks``); returns once every owner confirmed its cover and every tmux server
    /// took the lock. Exit 65 for an unknown session or one not running, 69 when an owner did not
    /// confirm (said on standard error).
    func lock(session: String?) throws -> ExitCode {
        let id = try session.map(InvocationContext.validSession)
        let store = try openStore()
        let name = try user
        if let id {
            guard let record = try store.session(id), record.user == name else {
                throw UsageError("unknown session '\(id.escapedForMessage)'", exitCode: .badValue)
            }
            guard record.lifecycle.state != .notRunning else {
                throw UsageError("session '\(id.escapedForMessage)' is not running", exitCode: .badValue)
            }
        }
        let sessions = WatchSessions(
            events: LifecycleEvents(store: store, user: name, probe: probe),
            effects: TerminalLocks(store: store, user: name, uid: geteuid(), tmuxTemporaryDirectory: environment["TMUX_TMPDIR"],
                                   report: { printError($0) }))
        let report = try sessions.sendAllToBackground(cause: .lockCommand, session: id)
        let unconfirmed = report.owners.notConfirmed
        emit(report.jsonValue, text: report.text)
        guard unconfirmed.isEmpty else {
            printError("\(unconfirmed.count) touchgate shell owner(s) did not confirm their cover: "
                       + unconfirmed.map { "\($0.pid)" }.joined(separator: ", "))
            return .unavailable
        }
        return .success
    }
}
