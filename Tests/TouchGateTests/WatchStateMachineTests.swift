import Testing
@testable import TouchGate

/// ``WatchStateMachine`` on its own: what `touchgate watch` does for each input, in order.
@Suite struct WatchStateMachineTests {
    /// A machine that started, connected with logind present and holds its inhibitor.
    static func running() -> WatchStateMachine {
        var machine = WatchStateMachine()
        #expect(machine.handle(.started) == [.connect])
        #expect(machine.handle(.connected(logindPresent: true)) == [.takeInhibitor])
        #expect(machine.handle(.inhibitorTaken(true)) == [])
        #expect(machine.holdsInhibitor)
        return machine
    }

    @Test func aSuspendLocksFirstAndReleasesTheInhibitorAfter() {
        var machine = Self.running()
        #expect(machine.handle(.prepareForSleep(true)) == [.sendAllToBackground, .releaseInhibitor])
        #expect(!machine.holdsInhibitor)
        // A second PrepareForSleep(true) locks again but has nothing to release.
        #expect(machine.handle(.prepareForSleep(true)) == [.sendAllToBackground])
        #expect(machine.handle(.prepareForSleep(false)) == [.bringAllToForeground, .takeInhibitor])
    }

    @Test func lockAndUnlockNeverTouchTheInhibitorAndNoInputUnlocks() {
        var machine = Self.running()
        #expect(machine.handle(.sessionLock) == [.sendAllToBackground])
        #expect(machine.handle(.sessionUnlock) == [.bringAllToForeground])
        #expect(machine.holdsInhibitor)
    }

    @Test func anInhibitorGrantedDuringASleepIsReleasedAtOnce() {
        var machine = WatchStateMachine()
        _ = machine.handle(.started)
        _ = machine.handle(.connected(logindPresent: true))
        #expect(machine.handle(.prepareForSleep(true)) == [.sendAllToBackground])
        #expect(machine.handle(.inhibitorTaken(true)) == [.releaseInhibitor])
        #expect(!machine.holdsInhibitor)
    }

    @Test func aLostBusReleasesAndReconnectsWithBackoff() {
        var machine = Self.running()
        #expect(machine.handle(.disconnected("gone")) == [
            .releaseInhibitor, .report("gone; reconnecting in 250 ms"), .scheduleReconnect(after: 0.25),
        ])
        #expect(machine.handle(.reconnectDue) == [.connect])
        #expect(machine.handle(.disconnected("still gone")) == [
            .report("still gone; reconnecting in 500 ms"), .scheduleReconnect(after: 0.5),
        ])
        #expect(machine.handle(.reconnectDue) == [.connect])
        #expect(machine.handle(.connected(logindPresent: true)) == [.report("reconnected to the system bus"), .takeInhibitor])
        #expect(WatchStateMachine.backoff(failures: 100) == WatchStateMachine.maximumDelay)
    }

    @Test func logindLeavingAndComingBack() {
        var machine = Self.running()
        #expect(machine.handle(.logindPresent(false)) == [
            .releaseInhibitor, .report("logind left the system bus; waiting for it to come back"),
        ])
        #expect(machine.handle(.logindPresent(true)) == [.report("logind is back on the system bus"), .takeInhibitor])
    }

    @Test func terminationReleasesTheInhibitorThenExits() {
        var machine = Self.running()
        #expect(machine.handle(.terminate) == [.releaseInhibitor, .exit])
        var idle = WatchStateMachine()
        #expect(idle.handle(.terminate) == [.exit])
    }
}
