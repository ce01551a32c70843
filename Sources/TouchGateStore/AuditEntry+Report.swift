import TouchGateCore
import TouchGateSystem

extension AuditEntry {
    /// The entry as `touchgate --json log` lists it.
    public var jsonValue: JSONValue {
        .object([
            ("id", .int(Int(id))), ("time", .string(isoTime(time))), ("user", .string(user)),
            ("session", session.map(JSONValue.string) ?? .null),
            ("policy", policy.map(JSONValue.string) ?? .null), ("factor", .string(factor)),
            ("outcome", .string(outcome)), ("code", .int(code)),
            ("change", change.map { change in
                .object([("key", .string(change.key)), ("old", .string(change.oldValue)),
                         ("new", .string(change.newValue)), ("by", change.actor.map(JSONValue.string) ?? .null)])
            } ?? .null),
        ])
    }

    /// The entry as `touchgate log` prints it: its fields two spaces apart, through
    /// ``TerminalText`` (stored text, session ids, user names and setting values, may hold anything).
    public var line: String {
        var fields = [isoTime(time), user, session ?? "-", policy ?? "-", factor, outcome]
        if let change {
            fields.append("\(change.key): '\(change.oldValue)' -> '\(change.newValue)'" + (change.actor.map { " by \($0)" } ?? ""))
        }
        return TerminalText.sanitized(fields.joined(separator: "  "))
    }
}
