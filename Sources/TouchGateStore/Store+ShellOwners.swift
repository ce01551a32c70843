import TouchGateCore
import TouchGateSystem

/// A running `touchgate shell`: the session whose terminal it holds, and the process.
public struct ShellOwnerRecord: Equatable, Sendable {
    public var session: String
    public var owner: ProcessIdentity
}

extension Store {
    /// Records `owner` as the process that holds `session`'s terminal, and forgets owners that
    /// are gone (a crashed or killed owner never removes its own row).
    public func registerShellOwner(session: String, user: String, owner: ProcessIdentity) throws(StoreError) {
        try perform {
            try database.transaction(.immediate) {
                for row in try database.rows("SELECT session, pid, start FROM shell_owners") {
                    guard let id = row[0].string, let pid = row[1].int, let start = row[2].int else { continue }
                    if !ProcessIdentity(pid: Int32(truncatingIfNeeded: pid), startTime: UInt64(bitPattern: Int64(start))).isAlive {
                        try database.run("DELETE FROM shell_owners WHERE session = ?", .text(id))
                    }
                }
                try database.run("""
                    INSERT INTO shell_owners (session, user, pid, start) VALUES (?, ?, ?, ?)
                    ON CONFLICT (session) DO UPDATE SET user = excluded.user, pid = excluded.pid, start = excluded.start
                    """, .text(session), .text(user), .integer(Int64(owner.pid)), .integer(Int64(bitPattern: owner.startTime)))
            }
        }
    }

    /// Forgets `owner`'s hold on `session` (the owner ends).
    public func removeShellOwner(session: String, owner: ProcessIdentity) throws(StoreError) {
        try perform {
            try database.run("DELETE FROM shell_owners WHERE session = ? AND pid = ? AND start = ?",
                             .text(session), .integer(Int64(owner.pid)), .integer(Int64(bitPattern: owner.startTime)))
        }
    }

    /// The live owners of `user`'s sessions (each process still the one that registered), or of
    /// session `id` alone.
    public func shellOwners(user: String? = nil, session id: String? = nil) throws(StoreError) -> [ShellOwnerRecord] {
        try perform {
            let rows: [[DatabaseValue]]
            if let id {
                rows = try database.rows("SELECT session, pid, start FROM shell_owners WHERE session = ?", .text(id))
            } else {
                rows = try database.rows("SELECT session, pid, start FROM shell_owners WHERE user = ?", .text(user ?? ""))
            }
            return rows.compactMap { row in
                guard let session = row[0].string, let pid = row[1].int, let start = row[2].int else { return nil }
                let owner = ProcessIdentity(pid: Int32(truncatingIfNeeded: pid), startTime: UInt64(bitPattern: Int64(start)))
                return owner.isAlive ? ShellOwnerRecord(session: session, owner: owner) : nil
            }
        }
    }
}
