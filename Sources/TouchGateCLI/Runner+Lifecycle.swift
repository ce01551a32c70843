import Glibc
import TouchGate

extension Runner {
    func relockPolicy(_ record: UserRecord, _ configuration: Configuration) -> SessionLifecycle.Policy {
        LifecycleEvents.policy(record, configuration)
    }

    /// The relock policy of user `name`, as `store` has it now.
    package func relockPolicy(store: Store, user name: String) throws -> SessionLifecycle.Policy {
        try LifecycleEvents(store: store, user: name, probe: probe).policy()
    }

    /// `touchgate event NAME`: records a lifecycle event; an event the state does not allow exits 65.
    func record(_ event: LifecycleEvent, session: String?) throws -> ExitCode {
        let id = try invocationContext.requireSession(session)
        let store = try openStore()
        let record = try LifecycleEvents(store: store, user: try user, probe: probe).record(event, session: id)
        emit(.object([
            ("session", .string(id)), ("event", .string(event.rawValue)),
            ("state", .string(record.lifecycle.state.rawValue)), ("locked", .bool(record.lifecycle.locked)),
        ]), text: nil)
        return .success
    }
}
