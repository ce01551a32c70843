import TouchGateCore
import TouchGateSystem

/// The gate's status as the store has it: the lines come from ``GateStatus``, the record, the
/// settings, the clock and this boot's id from the store's side, so the status itself reads nothing.
extension GateStatus {
    /// The status read from the store.
    package static func read(store: Store, user: String, session: String, remoteHost: String?) throws -> GateStatus {
        let record = try store.user(user)
        return GateStatus(user: user, session: session, record: record, configuration: try store.configuration(user: user),
                          remoteHost: remoteHost, now: store.clock.now, bootID: BootID.current())
    }
}
