import Testing
@testable import TouchGateOwner
@testable import TouchGateCore

/// ``ShellOwnerStateMachine`` on its own, with a set clock: what `touchgate shell` does for each
/// input, and that nothing but the gate's unlock lets a key or the program's output through.
@Suite struct ShellOwnerStateMachineTests {
    /// A machine whose program runs, shown, with `idle` seconds of idle lock; the last key at 100.
    static func open(idle: Int = 0) -> ShellOwnerStateMachine {
        var machine = ShellOwnerStateMachine()
        #expect(machine.start(now: 100) == .checkSession(.launch))
        #expect(machine.checked(locked: false, idleSeconds: idle, now: 100) == .startProgram)
        #expect(machine.readsInput)
        return machine
    }

    @Test func aLockedLaunchAsksBeforeTheProgramStarts() {
        var machine = ShellOwnerStateMachine()
        #expect(machine.start(now: 0) == .checkSession(.launch))
        // Nothing is read or shown while the store is asked, or while the gate runs.
        #expect(!machine.readsInput)
        #expect(machine.checked(locked: true, idleSeconds: 0, now: 0) == .cover)
        #expect(machine.input(now: 1) == .drop)
        #expect(!machine.readsInput)
        // A gate that ends without an unlock is run again; the program still has not started.
        #expect(machine.gateEnded(status: 137, terminalGone: false, now: 2) == .gateAgain(afterMilliseconds: 1000))
        #expect(machine.gateEnded(status: 0, terminalGone: false, now: 3) == .startProgram)
        #expect(machine.readsInput)
        #expect(machine.input(now: 4) == .relay)
    }

    @Test func aGateThatCannotUnlockEndsTheOwnerInsteadOfRunningAgain() {
        // notInteractive (no terminal to ask at) at the first gate: nothing started, the owner ends with 11.
        var first = ShellOwnerStateMachine()
        _ = first.start(now: 0)
        #expect(first.checked(locked: true, idleSeconds: 0, now: 0) == .cover)
        #expect(!first.programStarted)
        #expect(first.gateEnded(status: 11, terminalGone: false, now: 1) == .exit(status: 11, reason: .cannotUnlock))
        #expect(first.input(now: 2) == .drop)
        #expect(first.gateEnded(status: 0, terminalGone: false, now: 3) == .none)
        // Over a running program: the program is hung up (never shown again) and the owner ends with the gate's status.
        var running = Self.open()
        #expect(running.programStarted)
        _ = running.lockRequested()
        _ = running.checked(locked: true, idleSeconds: 0, now: 101)
        #expect(running.gateEnded(status: 64, terminalGone: false, now: 102) == .hangUpProgramAndExit(status: 64, reason: .cannotUnlock))
        #expect(running.output() == .recordOnly)
        #expect(running.input(now: 103) == .drop)
        #expect(running.programExited() == .exit(showRemainingOutput: false))
    }

    @Test func ctrlCEndsOnlyAGateBeforeTheProgramStarted() {
        var first = ShellOwnerStateMachine()
        _ = first.start(now: 0)
        _ = first.checked(locked: true, idleSeconds: 0, now: 0)
        #expect(first.gateEnded(status: 2, terminalGone: false, now: 1) == .exit(status: 2, reason: .cancelled))
        // Once the program ran, a userCancel is a gate ended without an unlock: covered, and asked again.
        var running = Self.open()
        _ = running.lockRequested()
        _ = running.checked(locked: true, idleSeconds: 0, now: 101)
        #expect(running.gateEnded(status: 2, terminalGone: false, now: 102) == .gateAgain(afterMilliseconds: 1000))
        #expect(running.output() == .recordOnly)
    }

    @Test func aGateThatKeepsEndingAtOnceEndsTheOwner() {
        var machine = Self.open()
        _ = machine.lockRequested()
        _ = machine.checked(locked: true, idleSeconds: 0, now: 100)
        // Killed after a while: run again, and the count starts over.
        #expect(machine.gateEnded(status: 137, terminalGone: false, now: 200, startedAt: 100) == .gateAgain(afterMilliseconds: 1000))
        var now = 200.0
        for _ in 1..<ShellOwnerStateMachine.quickEndsToGiveUp {
            #expect(machine.gateEnded(status: 134, terminalGone: false, now: now + 0.5, startedAt: now) == .gateAgain(afterMilliseconds: 1000))
            now += 1.5
        }
        #expect(machine.gateEnded(status: 134, terminalGone: false, now: now + 0.5, startedAt: now)
                == .hangUpProgramAndExit(status: 134, reason: .keepsEnding))
        #expect(machine.output() == .recordOnly)
        // One slow end in between starts the count over.
        var other = Self.open()
        _ = other.lockRequested()
        _ = other.checked(locked: true, idleSeconds: 0, now: 100)
        for index in 0..<(2 * ShellOwnerStateMachine.quickEndsToGiveUp - 1) {
            let took = index == ShellOwnerStateMachine.quickEndsToGiveUp - 1 ? 30.0 : 0.5
            #expect(other.gateEnded(status: 134, terminalGone: false, now: 100 + took, startedAt: 100) == .gateAgain(afterMilliseconds: 1000))
        }
    }

    @Test func whichGateStatusesEndTheOwner() {
        let cannotUnlock: [ExitCode] = [.notInteractive, .usage, .badValue, .store, .cannotExecute, .commandNotFound]
        #expect(ShellOwnerStateMachine.cannotUnlockStatuses == cannotUnlock)
        for status in cannotUnlock {
            #expect(ShellOwnerStateMachine.endsForGood(gateStatus: status.rawValue, programStarted: true) == .cannotUnlock)
        }
        // Every other status the gate can exit with, and killed, crashed: run again.
        let again = [ExitCode.success, .unavailable, .internalError, .watcherRunning]
            + AuthError.Code.allCases.map(ExitCode.init).filter { $0 != .notInteractive }
            + [129, 137, 143].map { ExitCode(rawValue: $0) }
        for status in again {
            #expect(ShellOwnerStateMachine.endsForGood(gateStatus: status.rawValue, programStarted: true) == nil, "\(status)")
        }
        #expect(ShellOwnerStateMachine.endsForGood(gateStatus: ExitCode(.userCancel).rawValue, programStarted: false) == .cancelled)
        // The numbers the shell's details and the man page give (POSIX's for a command that could not run).
        #expect(cannotUnlock.map(\.rawValue) == [11, 64, 65, 74, 126, 127])
    }

    @Test func theIdleLockIsDueFromTheLastKeyNotAtTheNextOne() {
        var machine = Self.open(idle: 60)
        #expect(machine.idleDeadline == 160)
        #expect(machine.input(now: 130) == .relay)
        #expect(machine.idleDeadline == 190)
        #expect(machine.timerFired(now: 189) == .none)
        #expect(machine.timerFired(now: 190) == .checkSession(.idle(since: 130)))
        #expect(!machine.readsInput)
        #expect(machine.output() == .recordOnly)
        #expect(machine.checked(locked: true, idleSeconds: 60, now: 190) == .cover)
        #expect(machine.idleDeadline == nil)
        #expect(machine.gateEnded(status: 0, terminalGone: false, now: 300) == .uncover)
        #expect(machine.idleDeadline == 360)
    }

    /// `config set idle-seconds` made elsewhere reaches a running owner at its next read of the
    /// settings: a new idle lock counts from the last key; a store that cannot say keeps the last value.
    @Test func idleSecondsReadAgainReachARunningOwner() {
        var machine = Self.open(idle: 0)
        #expect(machine.idleDeadline == nil)
        #expect(machine.input(now: 105) == .relay)
        machine.settingsRead(idleSeconds: 10)
        #expect(machine.idleDeadline == 115)
        machine.settingsRead(idleSeconds: nil)
        #expect(machine.idleDeadline == 115)
        #expect(machine.timerFired(now: 115) == .checkSession(.idle(since: 105)))
        // Already past when it is read: due at once.
        var late = Self.open(idle: 600)
        machine = late
        late.settingsRead(idleSeconds: 5)
        #expect(late.timerFired(now: 106) == .checkSession(.idle(since: 100)))
        machine.settingsRead(idleSeconds: 0)
        #expect(machine.idleDeadline == nil)
    }

    @Test func anIdleCheckThatFindsNoLockStartsTheIdleTimeAgain() {
        var machine = Self.open(idle: 10)
        #expect(machine.timerFired(now: 110) == .checkSession(.idle(since: 100)))
        #expect(machine.checked(locked: false, idleSeconds: 10, now: 110) == .none)
        #expect(machine.idleDeadline == 120)
        #expect(machine.output() == .showAndRecord)
    }

    @Test func whileCoveredNothingPassesAndOutputGoesToTheModelOnly() {
        var machine = Self.open()
        #expect(machine.lockRequested() == .checkSession(.request))
        #expect(machine.checked(locked: true, idleSeconds: 0, now: 101) == .cover)
        #expect(machine.input(now: 102) == .drop)
        #expect(machine.output() == .recordOnly)
        // A second request while covered is answered at once; a resize still reaches the program.
        #expect(machine.lockRequested() == .acknowledge)
        #expect(machine.resized() == .resizeProgram)
        // A focus change is recorded (it unlocks nothing).
        #expect(machine.focusChanged(focused: true) == .record(.didBecomeActive))
        #expect(machine.input(now: 103) == .drop)
    }

    @Test func aTerminalGoneAtTheGateHangsUpTheProgramAndNeverUncovers() {
        var machine = Self.open()
        _ = machine.lockRequested()
        _ = machine.checked(locked: true, idleSeconds: 0, now: 101)
        #expect(machine.gateEnded(status: 4, terminalGone: true, now: 102) == .hangUpProgram)
        #expect(machine.hangUp() == .hangUpProgram)
        #expect(machine.input(now: 103) == .drop)
        #expect(machine.output() == .recordOnly)
        #expect(machine.gateEnded(status: 0, terminalGone: false, now: 104) == .none)
        #expect(machine.programExited() == .exit(showRemainingOutput: false))
    }

    @Test func theProgramEndingWhileCoveredEndsTheGateAndShowsNothing() {
        var machine = Self.open()
        _ = machine.lockRequested()
        _ = machine.checked(locked: true, idleSeconds: 0, now: 101)
        #expect(machine.programExited() == .endGateAndExit)
        var shown = Self.open()
        #expect(shown.programExited() == .exit(showRemainingOutput: true))
    }

    @Test func aHangUpBeforeTheProgramStartsEndsTheOwner() {
        var machine = ShellOwnerStateMachine()
        _ = machine.start(now: 0)
        _ = machine.checked(locked: true, idleSeconds: 0, now: 0)
        #expect(machine.hangUp() == .exit)
        #expect(machine.hangUp() == .none)
    }

    @Test func focusReportsAreTakenOutOfTheInputUnlessTheProgramAskedForThem() {
        var reports = FocusReports()
        let typed: [UInt8] = Array("a\u{1B}[Ob\u{1B}[Ic".utf8)
        let filtered = reports.filter(typed[...])
        #expect(filtered.bytes == Array("abc".utf8))
        #expect(filtered.focus == true)
        // The program turns the mode on: reports pass through to it as well.
        let on = Array("x\u{1B}[?1004hy".utf8)
        #expect(on.withUnsafeBytes { reports.programWrote($0) } == false)
        #expect(reports.programWantsReports)
        #expect(reports.filter(typed[...]).bytes == typed)
        // It turns the mode off (at its exit): the owner must turn it on again.
        let off = Array("\u{1B}[?1004l".utf8)
        #expect(off.withUnsafeBytes { reports.programWrote($0) } == true)
        #expect(!reports.programWantsReports)
        // An Escape alone is a key, not held back.
        #expect(reports.filter([0x1B][...]).bytes == [0x1B])
    }
}
