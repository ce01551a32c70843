import Foundation
import Testing

/// The store stays bounded (item 16): each user's audit log keeps its `log-retention` newest
/// entries (plus `pending` ones young enough that their process may still settle them), and
/// session rows that ended or were not touched for 30 days are pruned, all inside the writes
/// touchgate makes anyway.
@Suite struct RetentionTests {
    static func auditCount(_ world: TestEnvironment, _ user: String) throws -> Int {
        Int(try world.sqlite("SELECT count(*) FROM audit WHERE user = '\(user)'")) ?? -1
    }

    @Test func theAuditLogKeepsLogRetentionEntriesPerUser() throws {
        let world = try TestEnvironment()
        // bob's entries, made first, are bob's: alice's retention does not touch them.
        world.user = "bob"
        for _ in 0..<3 {
            #expect(try world.run(["-S", "auth"], input: "bob-passcode\n").status == 0)
        }
        world.user = "alice"
        try world.setConfig("log-retention", "20")
        for run in 0..<100 {
            let auth = try world.run(["-S", "auth"], input: "alice-passcode\n")
            #expect(auth.status == 0, "run \(run): \(auth)")
        }
        // Each auth leaves one entry (its try, settled): exactly the 20 newest stay.
        #expect(try Self.auditCount(world, "alice") == 20)
        #expect(try Self.auditCount(world, "bob") == 3)
        let newest = try world.sqlite("SELECT max(id) FROM audit WHERE user = 'alice'")
        let kept = try world.sqlite("SELECT min(id) FROM audit WHERE user = 'alice'")
        #expect((Int(newest) ?? 0) - (Int(kept) ?? 0) == 19, "the newest are kept")
        let log = try world.run(["--json", "log", "--limit", "1000"])
        #expect((log.json?["entries"] as? [[String: Any]])?.count == 23, "\(log)")
    }

    @Test func pendingEntriesAreKeptWhileTheirProcessMayStillBeWaiting() throws {
        let world = try TestEnvironment()
        try world.setConfig("log-retention", "10")
        let now = Date().timeIntervalSince1970
        _ = try world.sqlite("""
            INSERT INTO audit (time, user, policy, factor, outcome) VALUES
                (\(now - 60), 'alice', 'device-owner', 'passcode', 'pending'),
                (\(now - 31 * 86_400), 'alice', 'device-owner', 'passcode', 'pending')
            """)
        for _ in 0..<15 {
            #expect(try world.run(["-S", "auth"], input: "alice-passcode\n").status == 0)
        }
        let pending = try world.sqlite("SELECT count(*) FROM audit WHERE user = 'alice' AND outcome = 'pending'")
        #expect(pending == "1", "the young pending entry stays, the one older than 30 days goes")
        #expect(try Self.auditCount(world, "alice") == 11)
    }

    @Test func sessionsThatEndedOrWereNotTouchedFor30DaysArePruned() throws {
        let world = try TestEnvironment()
        for id in ["ended-1", "ended-2", "old", "live"] {
            try world.gateEvents(["did-finish-launching", "did-become-active"], session: id)
        }
        try world.gateEvents(["will-resign-active", "will-terminate"], session: "ended-1")
        try world.gateEvents(["will-resign-active", "will-terminate"], session: "ended-2")
        let month = Date().timeIntervalSince1970 - 31 * 86_400
        _ = try world.sqlite("UPDATE sessions SET updated = \(month) WHERE id = 'old'")
        // ended-2's own writes pruned ended-1, but not ended-2 itself.
        #expect(try world.sqlite("SELECT id FROM sessions ORDER BY id") == "ended-2\nlive\nold")
        // A row that only holds a prompt claim (an `auth --session` for a session never launched) stays while claimed.
        let auth = try world.start(["-S", "auth", "--session", "claimed"])
        defer { auth.signal(SIGKILL) }
        try auth.waitForError(containing: "Password:")
        try world.gateEvents(["will-resign-active"], session: "live")
        #expect(try world.sqlite("SELECT id FROM sessions ORDER BY id") == "claimed\nlive")
        auth.write("alice-passcode\n")
        #expect(try auth.wait(timeout: 10).status == 0)
        try world.gateEvents(["did-become-active"], session: "live")
        #expect(try world.sqlite("SELECT id FROM sessions ORDER BY id") == "live")
    }

    @Test func logRetentionIsValidatedAndLoweringItWeakensTheLock() throws {
        let world = try TestEnvironment()
        for value in ["9", "1000001", "many"] {
            let result = try world.run(["config", "set", "log-retention", value])
            #expect(result.status == 65, "\(value): \(result)")
        }
        try world.enableAndEnroll()
        let lower = try world.run(["-S", "--json", "config", "set", "log-retention", "10"], input: "")
        CoreExpect.outcome(lower, "userCancel", policy: "device-owner")
        #expect(try world.run(["config", "get", "log-retention"]).stdout == "1000\n")
        let higher = try world.run(["--json", "config", "set", "log-retention", "5000"], input: "")
        #expect(higher.status == 0, "keeping more needs nothing: \(higher)")
    }
}
