import Foundation
import Testing

/// `touchgate watch` against logind's bus interface (python3-dbusmock's logind template on a
/// private system bus), with real stores, a real tmux server and real clients.
@Suite(.serialized) struct WatchTests {
    /// A world with the lock on, alice enrolled and `grace-seconds` long (so that only the
    /// watcher's "locked whatever the grace" can lock a session sent to the background), a bus
    /// with one logind session of this uid, and the watcher's environment pointing at the bus.
    static func world(_ bus: LogindBus) throws -> TestEnvironment {
        let world = try TestEnvironment()
        world.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        let grace = try world.run(["config", "set", "grace-seconds", "3600"])
        guard grace.status == 0 else { throw TestFailure("config set failed: \(grace)") }
        try world.enableAndEnroll()
        try bus.addSession("c1")
        return world
    }

    /// An unlocked, attached tmux session `s` (the marker shows) in `world`.
    static func unlockedTmuxSession(_ world: TestEnvironment) throws -> (TmuxHarness, String) {
        let tmux = try TmuxHarness(world: world)
        try tmux.startInnerSession("s", command: "printf '\(TmuxGateTests.marker)\\n'; exec /bin/sh")
        try tmux.attach("s")
        try TmuxGateTests.unlockWithFinger(tmux)
        let id = try tmux.sessionID("s")
        try TmuxGateTests.expectLocked(world, id, false)
        return (tmux, id)
    }

    /// Starts `touchgate watch` and waits until it holds its sleep delay inhibitor.
    static func startWatcher(_ world: TestEnvironment, _ bus: LogindBus) throws -> RunningProcess {
        let watcher = try world.start(["watch"])
        try gateEventually("the watcher's inhibitor: \(watcher.errorsSoFar)") {
            guard watcher.isRunning else { throw TestFailure("the watcher ended: \(watcher.errorsSoFar)") }
            return try bus.touchgateInhibits()
        }
        return watcher
    }

    /// `(state, locked)` of every session of the world's user, from the store.
    static func rows(_ world: TestEnvironment) throws -> [String] {
        try world.sqlite("SELECT state || ',' || locked FROM sessions ORDER BY id").split(separator: "\n").map(String.init)
    }

    @Test func aSuspendSendsEverySessionToTheBackgroundLockedAndLocksTmuxBeforeReleasingTheInhibitor() throws {
        let bus = try LogindBus()
        let world = try Self.world(bus)
        let (tmux, _) = try Self.unlockedTmuxSession(world)
        defer { tmux.shutdown() }
        // A shell session outside tmux, active; and one that ended (left alone).
        try world.gateEvents(["did-finish-launching", "did-become-active"], session: "shell-1")
        try world.gateEvents(["did-finish-launching", "will-terminate"], session: "shell-ended")
        let socket = try world.sqlite("SELECT tmux_socket FROM sessions WHERE id LIKE 'tmux-%'")
        #expect(socket == tmux.innerSocket)

        let watcher = try Self.startWatcher(world, bus)
        defer { watcher.signal(SIGTERM) }
        try bus.prepareForSleep(true)
        try gateEventually("the inhibitor released") { try !bus.touchgateInhibits() }
        // Checked right after the release: the marking came first.
        let marked = try world.sqlite("SELECT id || ':' || state || ',' || locked FROM sessions WHERE state <> 'notRunning' ORDER BY id")
        #expect(marked.split(separator: "\n").allSatisfy { $0.hasSuffix(":background,1") }, "\(marked)")
        #expect(marked.split(separator: "\n").count == 2, "\(marked)")
        try TmuxGateTests.waitForGate(tmux)
        #expect(try world.gateAuditCount(factor: "lifecycle", outcome: "did-enter-background") >= 2)
        #expect(watcher.isRunning, "\(watcher.errorsSoFar)")

        // Resume: the inhibitor is taken again, nothing is unlocked, the client still asks.
        try bus.prepareForSleep(false)
        try gateEventually("the inhibitor taken again") { try bus.touchgateInhibits() }
        let resumed = try Self.rows(world)
        #expect(resumed.filter { $0.hasPrefix("inactive") }.count == 2 && resumed.allSatisfy { $0.hasSuffix(",1") }, "\(resumed)")
        try TmuxGateTests.expectGateHolds(tmux)
        try TmuxGateTests.unlockWithFinger(tmux)
    }

    @Test func aSessionLockLocksEverySessionAndTmuxAndUnlockUnlocksNothing() throws {
        let bus = try LogindBus()
        let world = try Self.world(bus)
        let (tmux, id) = try Self.unlockedTmuxSession(world)
        defer { tmux.shutdown() }
        let watcher = try Self.startWatcher(world, bus)
        defer { watcher.signal(SIGTERM) }
        try bus.sessionSignal("c1", "Lock")
        try gateEventually("the session locked") { try world.gateSessionStatus(id)?.locked == true }
        #expect(try world.gateSessionStatus(id)?.state == "background")
        try TmuxGateTests.waitForGate(tmux)
        // A screen lock does not sleep: the inhibitor stays.
        #expect(try bus.touchgateInhibits())

        try bus.sessionSignal("c1", "Unlock")
        try gateEventually("will-enter-foreground recorded") { try world.gateSessionStatus(id)?.state == "inactive" }
        try TmuxGateTests.expectLocked(world, id, true)
        try TmuxGateTests.expectGateHolds(tmux)
    }

    /// A gate asking when logind's Lock comes says what locked the session (issue 22, item 7):
    /// the user cancelled nothing.
    @Test func aGateInterruptedByAScreenLockSaysSo() throws {
        let bus = try LogindBus()
        let world = try Self.world(bus)
        let tmux = try TmuxHarness(world: world)
        defer { tmux.shutdown() }
        try tmux.startInnerSession("s", command: "printf '\(TmuxGateTests.marker)\\n'; exec /bin/sh")
        try tmux.attach("s")
        try TmuxGateTests.waitForGate(tmux)
        let watcher = try Self.startWatcher(world, bus)
        defer { watcher.signal(SIGTERM) }
        try bus.sessionSignal("c1", "Lock")
        let screen = try tmux.waitForScreen(containing: "The screen was locked (logind Lock): the session stays locked. Type again.")
        #expect(!screen.contains("Cancelled"), "\(screen)")
        try TmuxGateTests.expectGateHolds(tmux)
        try TmuxGateTests.unlockWithFinger(tmux)
    }

    @Test func aLockOfAnotherUsersSessionIsIgnored() throws {
        let bus = try LogindBus()
        let world = try Self.world(bus)
        try bus.addSession("other", uid: getuid() + 4242, user: "someone")
        try world.gateEvents(["did-finish-launching", "did-become-active"], session: "shell-1")
        let watcher = try Self.startWatcher(world, bus)
        defer { watcher.signal(SIGTERM) }
        try bus.sessionSignal("other", "Lock")
        // Then one of ours, as a marker that the first one was processed.
        try bus.sessionSignal("c1", "Unlock")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try Self.rows(world) == ["active,1"])
    }

    /// A server whose session began before the snippet was loaded (README's `tmux source-file`
    /// into a running server), its record then lost: the store has no row for it, yet a screen
    /// lock locks its clients, because the watcher finds the server in tmux's socket directory. A reattach then records
    /// the session with its socket.
    @Test func aTmuxServerTheHooksNeverRecordedIsLockedToo() throws {
        let bus = try LogindBus()
        let world = try Self.world(bus)
        let directory = world.directory.appendingPathComponent("tmux-\(geteuid())").path
        #expect(mkdir(directory, 0o700) == 0)
        let tmux = try TmuxHarness(world: world, innerSocket: directory + "/default")
        defer { tmux.shutdown() }
        try tmux.startInnerSession("s", command: "printf '\(TmuxGateTests.marker)\\n'; exec /bin/sh", snippet: false)
        try tmux.attach("s")
        try tmux.waitForScreen(containing: TmuxGateTests.marker)
        let recorded = try tmux.sessionID("s")
        try tmux.inner("source-file", tmux.configuration)
        // Sourcing records the server's sessions in the background (`tmux-hook sourced`): once it
        // has, they are forgotten, so only tmux's socket directory leads the watcher to the server.
        try gateEventually("the session recorded when the snippet was sourced") {
            try world.sqlite("SELECT count(*) FROM sessions WHERE id = '\(recorded)'") == "1"
        }
        _ = try world.sqlite("DELETE FROM sessions")
        #expect(try Self.rows(world).isEmpty)
        let watcher = try Self.startWatcher(world, bus)
        defer { watcher.signal(SIGTERM) }
        try bus.sessionSignal("c1", "Lock")
        // Before: no row, no socket, so no lock-server: the session stayed on the screen.
        try TmuxGateTests.waitForGate(tmux)
        try TmuxGateTests.unlockWithFinger(tmux)

        // Detached and attached again: the hook meets a session without a row and records it.
        let id = try tmux.sessionID("s")
        try tmux.inner("detach-client", "-s", "s")
        try tmux.waitForScreen(containing: "CLIENT-EXITED")
        try tmux.attach("s")
        try TmuxGateTests.unlockWithFinger(tmux)
        try gateEventually("the session recorded with its socket") {
            try world.sqlite("SELECT tmux_socket FROM sessions WHERE id = '\(id)'") == directory + "/default"
        }
    }

    /// A server on `-S PATH` outside tmux's directory that loaded the snippet after it started
    /// (issue 30): sourcing the snippet records its sessions with the socket at once, and even
    /// when the store knows nothing of it the watcher finds it from its process: its client is
    /// locked at a suspend.
    @Test func aTmuxServerOnASocketElsewhereSourcedLateIsLockedAtASuspend() throws {
        let bus = try LogindBus()
        let world = try Self.world(bus)
        let directory = world.directory.appendingPathComponent("elsewhere").path
        #expect(mkdir(directory, 0o700) == 0)
        let socket = directory + "/s.sock"
        let tmux = try TmuxHarness(world: world, innerSocket: socket)
        defer { tmux.shutdown() }
        try tmux.startInnerSession("s", command: "printf '\(TmuxGateTests.marker)\\n'; exec /bin/sh", snippet: false)
        try tmux.attach("s")
        try tmux.waitForScreen(containing: TmuxGateTests.marker)
        let id = try tmux.sessionID("s")
        #expect(try Self.rows(world).isEmpty)
        try tmux.inner("source-file", tmux.configuration)
        try gateEventually("the session recorded with its socket when the snippet was sourced") {
            try world.sqlite("SELECT tmux_socket FROM sessions WHERE id = '\(id)'") == socket
        }
        // Forgotten again: only the server's process can lead the watcher to it now.
        _ = try world.sqlite("DELETE FROM sessions")
        let watcher = try Self.startWatcher(world, bus)
        defer { watcher.signal(SIGTERM) }
        try bus.prepareForSleep(true)
        try gateEventually("the inhibitor released") { try !bus.touchgateInhibits() }
        try TmuxGateTests.waitForGate(tmux)
        try bus.prepareForSleep(false)
        try TmuxGateTests.expectGateHolds(tmux)
        try TmuxGateTests.unlockWithFinger(tmux)
    }

    /// The host's accounts do not matter: the watcher follows the logind sessions of the account
    /// it runs as, whatever the touchgate user is called (the tests' `alice` may exist on a host,
    /// with another uid). Here the touchgate user is named like an existing account of another uid.
    @Test func theWatcherFollowsTheSessionsOfTheAccountItRunsAsWhateverAccountsTheHostHas() throws {
        var other: String?
        setpwent()
        while let entry = getpwent() {
            if entry.pointee.pw_uid != geteuid(), let name = entry.pointee.pw_name { other = String(cString: name); break }
        }
        endpwent()
        let name = try #require(other, "no account of another uid in the host's passwd")
        let bus = try LogindBus()
        try bus.addSession("c1")
        let world = try TestEnvironment()
        world.user = name
        world.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        try world.gateEvents(["did-finish-launching", "did-become-active"], session: "shell-1")
        let watcher = try Self.startWatcher(world, bus)
        defer { watcher.signal(SIGTERM) }
        try bus.sessionSignal("c1", "Lock")
        try gateEventually("the session sent to the background (\((try? Self.rows(world)) ?? []))", timeout: 10) {
            try Self.rows(world) == ["background,0"]
        }
    }

    @Test func aSuspendEndsAWaitingEvaluationWithAppCancel() throws {
        let bus = try LogindBus()
        let world = try Self.world(bus)
        try world.gateEvents(["did-finish-launching", "did-become-active"], session: "shell-1")
        let auth = try world.start(["-S", "--json", "auth", "--session", "shell-1"])
        try auth.waitForError(containing: "Password:")
        let watcher = try Self.startWatcher(world, bus)
        defer { watcher.signal(SIGTERM) }
        try bus.prepareForSleep(true)
        let result = try auth.wait(timeout: 10)
        #expect(result.status == 9, "\(result)")
        #expect(result.json?["outcome"] as? String == "appCancel", "\(result)")
        #expect(try Self.rows(world) == ["background,1"])
    }

    /// The marking of all sessions is one transaction: a write that fails for the second session
    /// (a trigger added under the running watcher) leaves the first one as it was too; the
    /// watcher says so in one line and exits 74, which also lets the machine sleep.
    @Test func aStoreThatCannotBeWrittenMarksNothingAndEndsTheWatcherWith74() throws {
        let bus = try LogindBus()
        let world = try Self.world(bus)
        for session in ["shell-1", "shell-2"] {
            try world.gateEvents(["did-finish-launching", "did-become-active"], session: session)
        }
        let watcher = try Self.startWatcher(world, bus)
        _ = try world.sqlite("""
            CREATE TRIGGER refuse BEFORE UPDATE ON sessions WHEN NEW.id = 'shell-2' BEGIN SELECT RAISE(ABORT, 'refused'); END;
            """)
        try bus.prepareForSleep(true)
        let result = try watcher.wait(timeout: 20)
        #expect(result.status == 74, "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("refused"), "\(result)")
        #expect(try Self.rows(world) == ["active,1", "active,1"])
        #expect(try world.gateAuditCount(factor: "lifecycle", outcome: "will-resign-active") == 0)
        #expect(try !bus.touchgateInhibits())
    }

    /// A tmux server that does not answer (stopped) cannot hold the machine's sleep: the watcher
    /// gives up on it after a few seconds, says so, and releases the inhibitor, the rows marked.
    @Test func aTmuxServerThatDoesNotAnswerDoesNotHoldTheSleep() throws {
        let bus = try LogindBus()
        let world = try Self.world(bus)
        let tmux = try TmuxHarness(world: world)
        defer { tmux.shutdown() }
        try tmux.startInnerSession("s")
        let server = try #require(pid_t(try tmux.inner("display-message", "-p", "#{pid}").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        let watcher = try Self.startWatcher(world, bus)
        defer { watcher.signal(SIGTERM) }
        kill(server, SIGSTOP)
        defer { kill(server, SIGCONT) }
        try bus.prepareForSleep(true)
        try gateEventually("the inhibitor released", timeout: 15) { try !bus.touchgateInhibits() }
        #expect(watcher.errorsSoFar.contains("touchgate: tmux did not answer lock-server within 3 s"), "\(watcher.errorsSoFar)")
        #expect(try Self.rows(world) == ["background,1"])
        #expect(watcher.isRunning)
    }

    @Test func sigtermReleasesTheInhibitorAndExitsZero() throws {
        let bus = try LogindBus()
        let world = try Self.world(bus)
        let watcher = try Self.startWatcher(world, bus)
        watcher.signal(SIGTERM)
        let result = try watcher.wait(timeout: 10)
        #expect(result.status == 0, "\(result)")
        #expect(try !bus.touchgateInhibits())
        let interrupted = try Self.startWatcher(world, bus)
        interrupted.signal(SIGINT)
        #expect(try interrupted.wait(timeout: 10).status == 0)
    }

    @Test func aSecondWatcherForTheSameUserAndStoreIsRefused() throws {
        let bus = try LogindBus()
        let world = try Self.world(bus)
        let watcher = try Self.startWatcher(world, bus)
        defer { watcher.signal(SIGTERM) }
        let second = try world.run(["watch"], timeout: 10)
        #expect(second.status == 75, "\(second)")
        #expect(second.stderr == "touchgate: a watcher already runs for user alice and store \(world.storePath) (pid \(watcher.pid))\n",
                "\(second)")
        let status = try world.run(["--json", "status"])
        #expect(status.json?["watcher"] as? Int == Int(watcher.pid), "\(status)")
        watcher.signal(SIGTERM)
        _ = try watcher.wait(timeout: 10)
        let after = try world.run(["--json", "status"])
        #expect(after.json?["watcher"] is NSNull, "\(after)")
        // Another user of the same store has a watcher of their own.
        world.user = "bob"
        let bobs = try Self.startWatcher(world, bus)
        bobs.signal(SIGTERM)
        #expect(try bobs.wait(timeout: 10).status == 0)
    }

    @Test func theWatcherReconnectsWhenTheBusRestartsAndTheNextSuspendStillLocks() throws {
        let bus = try LogindBus()
        let world = try Self.world(bus)
        try world.gateEvents(["did-finish-launching", "did-become-active"], session: "shell-1")
        let watcher = try Self.startWatcher(world, bus)
        defer { watcher.signal(SIGTERM) }
        bus.stop()
        try watcher.waitForError(containing: "reconnecting in", timeout: 10)
        try bus.start()
        try bus.addSession("c1")
        try gateEventually("the inhibitor taken on the new bus", timeout: 20) { try bus.touchgateInhibits() }
        #expect(watcher.errorsSoFar.contains("touchgate: reconnected to the system bus"), "\(watcher.errorsSoFar)")
        try bus.prepareForSleep(true)
        try gateEventually("the inhibitor released") { try !bus.touchgateInhibits() }
        #expect(try Self.rows(world) == ["background,1"])
    }

    @Test func logindRestartingIsFollowedAndTheNextSuspendStillLocks() throws {
        let bus = try LogindBus()
        let world = try Self.world(bus)
        try world.gateEvents(["did-finish-launching", "did-become-active"], session: "shell-1")
        let watcher = try Self.startWatcher(world, bus)
        defer { watcher.signal(SIGTERM) }
        bus.stopLogind()
        try watcher.waitForError(containing: "touchgate: logind left the system bus; waiting for it to come back", timeout: 10)
        try bus.startLogind()
        try bus.addSession("c1")
        try gateEventually("the inhibitor taken from the new logind") { try bus.touchgateInhibits() }
        #expect(watcher.errorsSoFar.contains("touchgate: logind is back on the system bus"), "\(watcher.errorsSoFar)")
        // A Lock of a session the new logind made after the watcher listed its sessions counts.
        try bus.sessionSignal("c1", "Lock")
        try gateEventually("the session locked") { try Self.rows(world) == ["background,1"] }
        #expect(watcher.isRunning)
    }

    @Test func theUnitFileIsWhatWatchUnitPrints() throws {
        let world = try TestEnvironment()
        let printed = try world.run(["watch", "--unit"])
        #expect(printed.status == 0, "\(printed)")
        let shipped = try String(contentsOf: TestEnvironment.packageRoot.appendingPathComponent("systemd/touchgate-watch.service"),
                                 encoding: .utf8)
        #expect(printed.stdout.replacingOccurrences(of: "ExecStart=\(TestEnvironment.binary) watch",
                                                    with: "ExecStart=/usr/local/bin/touchgate watch") == shipped, "\(printed)")
        let withStore = try world.run(["watch", "--unit", "--store", "/var/x y/%h.sqlite"])
        #expect(withStore.stdout.contains("ExecStart=\(TestEnvironment.binary) --store \"/var/x y/%%h.sqlite\" watch\n"), "\(withStore)")
        let misplaced = try world.run(["status", "--unit"])
        #expect(misplaced.status == 64, "\(misplaced)")
    }
}
