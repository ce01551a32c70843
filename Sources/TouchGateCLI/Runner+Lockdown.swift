import Glibc
import TouchGate

extension Runner {
    /// `lockdown`: the biometric factor off until the next passcode success; `--system` (or
    /// root naming another user's store) sets the administrator's lock instead of the user's.
    func lockdown() throws -> ExitCode {
        // Before the store is opened: root acting on a user's store becomes that user to open it.
        let administrator = invocationContext.isAdministratorsCommand
        let actor = invocationContext.invokingActor()
        let store = try openStore()
        let name = try user
        try checkLedgerUser(name, in: store)
        try store.lockdown(user: name, byAdministrator: administrator, session: environment["TOUCHGATE_SESSION"], actor: actor)
        let reason: PasscodeRequirement.Reason = administrator ? .adminLock : .lockdown
        emit(.object([("user", .string(name)), ("store", .string(store.path.string)), ("passcodeRequired", .string(reason.rawValue))]),
             text: "lockdown for \(name): the biometric factor is off until the next passcode success")
        return .success
    }
}
