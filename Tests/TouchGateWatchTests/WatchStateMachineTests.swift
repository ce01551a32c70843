import Testing
@testable import TouchGateWatch
@testable import TouchGateCore

/// ``WatchStateMachine`` on its own: what `touchgate watch` does for each input, each input's
/// own action.
@Suite struct WatchStateMachineTests {
    /// A machine that started, connected with logind present and holds its inhibitor.
    static func running() -> WatchStateMachine {
        var machine = WatchStateMachine()
        #expect(machine.start() == .connect)
        #expect(machine.connected(logindPresent: true) == .takeInhibitor(report: nil))
        #expect(machine.inhibitorTaken() == .keep)
        #expect(machine.holdsInhibitor)
        return machine
    }

    @Test func aSuspendLocksFirstAndReleasesTheInhibitorAfter() {
        var machine = Self.running()
        #expect(machine.preparingForSleep() == .sendAllToBackground(thenReleaseInhibitor: true))
        #expect(!machine.holdsInhibitor)
        #expect(machine.sleeping)
        // A second PrepareForSleep(true) locks again but has nothing to release.
        #expect(machine.preparingForSleep() == .sendAllToBackground(thenReleaseInhibitor: false))
        #expect(machine.wokeUp() == .bringAllToForeground(thenTakeInhibitor: true))
        #expect(!machine.sleeping)
    }

    @Test func lockAndUnlockNeverTouchTheInhibitorAndNoInputUnlocks() {
        var machine = Self.running()
        #expect(machine.sessionLocked() == .sendAllToBackground)
        #expect(machine.sessionUnlocked() == .bringAllToForeground)
        #expect(machine.holdsInhibitor)
    }

    @Test func anInhibitorGrantedDuringASleepIsReleasedAtOnce() {
        var machine = WatchStateMachine()
        _ = machine.start()
        _ = machine.connected(logindPresent: true)
        #expect(machine.preparingForSleep() == .sendAllToBackground(thenReleaseInhibitor: false))
        #expect(machine.inhibitorTaken() == .releaseInhibitor)
        #expect(!machine.holdsInhibitor)
    }

    @Test func aRefusedInhibitorIsSaidAndNotHeld() {
        var machine = WatchStateMachine()
        _ = machine.start()
        _ = machine.connected(logindPresent: true)
        #expect(machine.inhibitorRefused()
            == .report("logind refused a sleep delay inhibitor; a suspend may come before the lock"))
        #expect(!machine.holdsInhibitor)
    }

    @Test func aLostBusReleasesAndReconnectsWithBackoff() {
        var machine = Self.running()
        #expect(machine.disconnected("gone")
            == .scheduleReconnect(after: 0.25, releaseInhibitor: true, report: "gone; reconnecting in 250 ms"))
        #expect(!machine.holdsInhibitor)
        // A second loss while a reconnect is scheduled changes nothing.
        #expect(machine.disconnected("again") == .none)
        #expect(machine.reconnectDue() == .connect)
        // A reconnect that is under way is not started twice.
        #expect(machine.reconnectDue() == .none)
        #expect(machine.disconnected("still gone")
            == .scheduleReconnect(after: 0.5, releaseInhibitor: false, report: "still gone; reconnecting in 500 ms"))
        #expect(machine.reconnectDue() == .connect)
        #expect(machine.connected(logindPresent: true) == .takeInhibitor(report: "reconnected to the system bus"))
        #expect(machine.failures == 0)
        #expect(WatchStateMachine.backoff(failures: 100) == WatchStateMachine.maximumDelay)
    }

    @Test func aConnectionWithoutLogindWaitsForIt() {
        var machine = WatchStateMachine()
        _ = machine.start()
        #expect(machine.connected(logindPresent: false) == .report(["logind is not on the system bus; waiting for it"]))
        #expect(machine.disconnected("gone") != .none)
        _ = machine.reconnectDue()
        #expect(machine.connected(logindPresent: false)
            == .report(["reconnected to the system bus", "logind is not on the system bus; waiting for it"]))
        #expect(machine.logindPresent(true) == .back(report: "logind is back on the system bus", takeInhibitor: true))
    }

    @Test func logindLeavingAndComingBack() {
        var machine = Self.running()
        #expect(machine.logindPresent(false)
            == .left(releaseInhibitor: true, report: "logind left the system bus; waiting for it to come back"))
        #expect(machine.logindPresent(true) == .back(report: "logind is back on the system bus", takeInhibitor: true))
        // Without a connection there is no logind to hear of.
        var idle = WatchStateMachine()
        #expect(idle.logindPresent(true) == .none)
    }

    @Test func aWakeWithoutAConnectionTakesNoInhibitor() {
        var machine = WatchStateMachine()
        _ = machine.start()
        #expect(machine.preparingForSleep() == .sendAllToBackground(thenReleaseInhibitor: false))
        #expect(machine.wokeUp() == .bringAllToForeground(thenTakeInhibitor: false))
    }

    @Test func terminationReleasesTheInhibitorThenExits() {
        var machine = Self.running()
        #expect(machine.terminate() == .exit(releaseInhibitor: true))
        var idle = WatchStateMachine()
        #expect(idle.terminate() == .exit(releaseInhibitor: false))
        // Once exited, nothing starts again.
        #expect(idle.start() == .none)
    }
}
