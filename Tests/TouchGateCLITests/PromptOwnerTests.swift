import Foundation
import Testing

/// A session's prompt owner is a process named by pid and start time: once the owner is gone, a
/// process that got its pid is never signalled or waited for (item 10).
@Suite struct PromptOwnerTests {
    /// A live process unrelated to touchgate: `sleep`, which SIGUSR1 would kill.
    static func bystander() throws -> RunningProcess {
        try RunningProcess(["/bin/sleep", "120"], environment: [:])
    }

    /// Field 22 of `/proc/PID/stat`.
    static func startTime(_ pid: pid_t) throws -> String {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        return String(fields[19])
    }

    /// Plants a claim on `session` naming `pid` with a start time that is not its own, as a
    /// killed `auth` whose pid was given to another process leaves it.
    static func plantStaleClaim(_ world: TestEnvironment, session: String, pid: pid_t) throws {
        let wrong = (UInt64(try startTime(pid)) ?? 0) + 12_345
        _ = try world.sqlite("""
            UPDATE sessions SET prompt_pid = \(pid), prompt_start = \(wrong), prompt_kind = 'auth' WHERE id = '\(session)'
            """)
    }

    @Test func didEnterBackgroundNeverSignalsAProcessThatOnlySharesTheOwnersPid() throws {
        let world = try GateTests.launchedSession()
        let sleep = try Self.bystander()
        defer { sleep.signal(SIGKILL) }
        try Self.plantStaleClaim(world, session: "term-1", pid: sleep.pid)
        let event = try world.run(["--json", "event", "did-enter-background", "--session", "term-1"])
        #expect(event.status == 0, "\(event)")
        #expect(event.json?["state"] as? String == "background")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(sleep.isRunning, "the bystander got SIGUSR1: \(sleep.killedBySignal)")
        // The stale claim is gone with that write.
        #expect(try world.sqlite("SELECT prompt_pid IS NULL FROM sessions WHERE id = 'term-1'") == "1")
    }

    @Test func aGateNeverWaitsForAProcessThatOnlySharesTheOwnersPid() throws {
        let world = try GateTests.launchedSession()
        let sleep = try Self.bystander()
        defer { sleep.signal(SIGKILL) }
        try Self.plantStaleClaim(world, session: "term-1", pid: sleep.pid)
        let gate = try world.start(["-S", "gate", "--session", "term-1"])
        defer { gate.signal(SIGKILL) }
        gate.write("alice-finger\n")
        let result = try gate.wait(timeout: 20)
        #expect(result.status == 0, "\(result)")
        #expect(!result.stderr.contains("Another terminal"), "\(result)")
        #expect(try world.gateSessionStatus("term-1")?.locked == false)
        #expect(sleep.isRunning)
    }

    /// The claim an `auth` makes names it with its real start time, and a live owner so named
    /// still gets its cancel.
    @Test func aLiveOwnerIsRecordedWithItsStartTimeAndStillCancelled() throws {
        let world = try GateTests.launchedSession()
        try world.gateEvents(["did-become-active", "will-resign-active"], session: "term-1")
        let auth = try world.start(["-S", "--json", "auth", "--session", "term-1"])
        defer { auth.signal(SIGKILL) }
        try auth.waitForError(containing: "Password:")
        let row = try world.sqlite("SELECT prompt_pid || ' ' || prompt_start FROM sessions WHERE id = 'term-1'")
        #expect(row == "\(auth.pid) \(try Self.startTime(auth.pid))")
        let event = try world.run(["event", "did-enter-background", "--session", "term-1"])
        #expect(event.status == 0, "\(event)")
        let result = try auth.wait(timeout: 10)
        #expect(result.json?["outcome"] as? String == "appCancel", "\(result)")
    }
}
