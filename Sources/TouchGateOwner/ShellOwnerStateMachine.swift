import TouchGateCore

/// The decisions of `touchgate shell`, the terminal owner: when the inner program starts, when a
/// key reaches it, when its output reaches the screen, when the gate covers the terminal, and
/// how the owner ends.
///
/// The owner holds the user's terminal and runs the program on a pseudo-terminal of its own.
/// While the session is locked nothing typed reaches the program and nothing it writes reaches
/// the screen (it goes to the screen model only, which is drawn back after the unlock), whatever
/// the program is: the lock does not depend on the program's cooperation, as a shell hook does.
/// Pure, in the shape of swift-nio's state machines: each input returns the action the driver
/// performs (``ShellOwner`` in `TouchGateOwner`); no I/O here.
struct ShellOwnerStateMachine: Sendable {
    /// Why the owner asks whether the session is locked (the core's, which ``ShellSession`` answers).
    typealias CheckReason = ShellOwnerCheckReason

    private enum State: Sendable {
        /// Before the first check: nothing runs yet.
        case idle
        /// Asking the store whether the session is locked (`program` tells whether it runs yet).
        case checking(CheckReason, programStarted: Bool, lastInput: Double)
        /// The program runs and the terminal shows it; `lastInput` is the last key's time.
        case open(lastInput: Double)
        /// The gate holds the terminal; the program (if started) runs, reads no key and shows nothing.
        case covered(programStarted: Bool)
        /// The terminal is gone or the owner was told to end: the program was hung up; waiting for its end.
        case hangingUp
        case ended
    }

    private var state: State = .idle
    /// The store's `idle-seconds` as of the last check (0: no idle lock).
    private var idleSeconds: Int = 0

    init() {}

    // MARK: - Start

    enum StartAction: Equatable, Sendable {
        /// Record the launch, then ask the store whether the session is locked (``checked(locked:idleSeconds:now:)``).
        case checkSession(CheckReason)
    }

    mutating func start(now: Double) -> StartAction {
        switch state {
        case .idle:
            state = .checking(.launch, programStarted: false, lastInput: now)
            return .checkSession(.launch)
        case .checking, .open, .covered, .hangingUp, .ended:
            preconditionFailure("started twice")
        }
    }

    // MARK: - The store's answer

    enum CheckAction: Equatable, Sendable {
        /// Stop passing keys, keep output off the screen, blank the screen and run the gate.
        case cover
        /// The session may be shown: start the program (the first check only).
        case startProgram
        /// Nothing changes (an idle or requested check found the session unlocked).
        case none
    }

    /// The answer to a ``CheckReason``: whether the session is locked, and the idle time the store has now.
    /// A store that cannot be read counts as locked (the gate then runs offline, passcode only).
    mutating func checked(locked: Bool, idleSeconds: Int, now: Double) -> CheckAction {
        self.idleSeconds = idleSeconds
        let reason: CheckReason, started: Bool, lastInput: Double
        switch state {
        case .checking(let asked, let running, let input): (reason, started, lastInput) = (asked, running, input)
        case .idle, .open, .covered, .hangingUp, .ended: return .none
        }
        if locked {
            state = .covered(programStarted: started)
            return .cover
        }
        if !started {
            state = .open(lastInput: now)
            return .startProgram
        }
        // An idle check that found the lock off (or the idle time changed) starts the idle time again.
        if case .idle = reason {
            state = .open(lastInput: now)
        } else {
            state = .open(lastInput: lastInput)
        }
        return .none
    }

    // MARK: - The gate

    enum GateEndAction: Equatable, Sendable {
        /// The unlock: start the program, now that the session may be shown.
        case startProgram
        /// The unlock: draw the program's screen back from the screen model and pass keys again.
        case uncover
        /// The gate ended without an unlock (killed, crashed): cover again, say so, and run a new
        /// gate after `milliseconds`. Nothing of the session shows in between.
        case gateAgain(afterMilliseconds: Int32)
        /// The gate ended for good (``endsForGood(gateStatus:programStarted:)``): give the
        /// terminal back, say `reason` in one line on standard error, and exit with `status`,
        /// the gate's. Nothing runs yet, so nothing of the session is exposed.
        case exit(status: Int32, reason: GiveUpReason)
        /// The same with the program running: hang it up (never shown again), then exit with `status`.
        case hangUpProgramAndExit(status: Int32, reason: GiveUpReason)
        /// The terminal is gone: hang up the program.
        case hangUpProgram
        /// Nothing: the owner is ending anyway.
        case none
    }

    /// Why the owner ends after a gate that did not unlock.
    enum GiveUpReason: Equatable, Sendable {
        /// The gate cannot unlock here: another run would end the same (no terminal to ask at,
        /// a usage error, a value or a store it cannot use, a gate that cannot be run).
        case cannotUnlock
        /// Ctrl-C at the first gate, before the program started.
        case cancelled
        /// The gate ended without an unlock ``quickEndsToGiveUp`` times in a row, each within
        /// ``quickEndSeconds`` of its start (it crashes, or something ends it at once): another
        /// run would only loop.
        case keepsEnding
    }

    /// A gate that ends sooner than this after its start, without an unlock, ended "quickly".
    static let quickEndSeconds = 2.0
    /// How many quick ends in a row end the owner.
    static let quickEndsToGiveUp = 5
    /// The gates that ended quickly in a row, without an unlock.
    private var quickEnds = 0

    /// Whether a gate that ended with `gateStatus` (an exit status, 128 + a signal) ends the
    /// owner rather than being run again: an error that another run would repeat
    /// (``cannotUnlockStatuses``), or Ctrl-C (userCancel) at the first gate, before the program started
    /// (the owner runs that gate with `--cancelable`). A gate killed, crashed or cancelled by the
    /// system is run again (that may not happen twice), unless gates keep ending at once
    /// (``GiveUpReason/keepsEnding``, which ``gateEnded(status:terminalGone:now:startedAt:)`` counts).
    static func endsForGood(gateStatus: Int32, programStarted: Bool) -> GiveUpReason? {
        let status = ExitCode(rawValue: gateStatus)
        if status == ExitCode(.userCancel), !programStarted { return .cancelled }
        return cannotUnlockStatuses.contains(status) ? .cannotUnlock : nil
    }

    /// The gate's statuses that another run would repeat: no terminal to ask at, a usage error, a
    /// value or a store it cannot use, a gate that cannot be run (the shell's two).
    static let cannotUnlockStatuses: [ExitCode] = [
        .notInteractive, .usage, .badValue, .store, .cannotExecute, .commandNotFound,
    ]

    /// Whether the program has started (the gate that covers it then runs without `--cancelable`).
    var programStarted: Bool {
        switch state {
        case .idle, .checking(_, programStarted: false, _), .covered(programStarted: false): false
        case .checking(_, programStarted: true, _), .covered(programStarted: true), .open, .hangingUp, .ended: true
        }
    }

    /// The gate that started at `startedAt` ended with `status` (``ExitCode/success``: the unlock).
    mutating func gateEnded(status: Int32, terminalGone: Bool, now: Double, startedAt: Double? = nil) -> GateEndAction {
        let started: Bool
        switch state {
        case .covered(let running): started = running
        case .idle, .checking, .open, .hangingUp, .ended: return .none
        }
        // The terminal is gone: ``hangUp()`` ends the owner (and the program, if it runs).
        if terminalGone { return .hangUpProgram }
        guard status == ExitCode.success.rawValue else {
            var reason = Self.endsForGood(gateStatus: status, programStarted: started)
            if reason == nil {
                let quick = startedAt.map { now - $0 < Self.quickEndSeconds } ?? false
                quickEnds = quick ? quickEnds + 1 : 0
                if quickEnds >= Self.quickEndsToGiveUp { reason = .keepsEnding }
            }
            guard let reason else { return .gateAgain(afterMilliseconds: 1000) }
            guard started else {
                state = .ended
                return .exit(status: status, reason: reason)
            }
            state = .hangingUp
            return .hangUpProgramAndExit(status: status, reason: reason)
        }
        quickEnds = 0
        state = .open(lastInput: now)
        return started ? .uncover : .startProgram
    }

    // MARK: - Input and output

    enum InputAction: Equatable, Sendable {
        /// Write the bytes to the program's terminal.
        case relay
        /// Drop them: the gate holds the terminal, or nothing runs yet.
        case drop
    }

    /// Bytes typed at the outer terminal (focus reports already taken out).
    mutating func input(now: Double) -> InputAction {
        switch state {
        case .open:
            state = .open(lastInput: now)
            return .relay
        case .idle, .checking, .covered, .hangingUp, .ended:
            return .drop
        }
    }

    enum OutputAction: Equatable, Sendable {
        /// To the screen model and to the outer terminal.
        case showAndRecord
        /// To the screen model only: the gate holds the terminal.
        case recordOnly
    }

    /// Bytes the program wrote.
    func output() -> OutputAction {
        switch state {
        case .open: .showAndRecord
        case .idle, .checking, .covered, .hangingUp, .ended: .recordOnly
        }
    }

    /// How often a shown session reads its settings again: a `config set idle-seconds` made
    /// elsewhere reaches a running owner within this many seconds.
    static let settingsReadSeconds: Double = 1

    /// The store's `idle-seconds` read again while the session is shown (`nil`: the store could
    /// not say, and the last value stands). The idle lock is then due at the last key plus the
    /// new time: a shorter one already past locks at once (the timer fires).
    mutating func settingsRead(idleSeconds: Int?) {
        if let idleSeconds { self.idleSeconds = idleSeconds }
    }

    /// When the idle lock is due: the last key plus `idle-seconds`, or `nil` (no idle lock, or
    /// the terminal is not shown).
    var idleDeadline: Double? {
        switch state {
        case .open(let lastInput): idleSeconds > 0 ? lastInput + Double(idleSeconds) : nil
        case .idle, .checking, .covered, .hangingUp, .ended: nil
        }
    }

    enum TimerAction: Equatable, Sendable {
        case checkSession(CheckReason)
        case none
    }

    /// The timer woke at `now`: the idle lock when its time came.
    mutating func timerFired(now: Double) -> TimerAction {
        switch state {
        case .open(let lastInput):
            guard let deadline = idleDeadline, now >= deadline else { return .none }
            state = .checking(.idle(since: lastInput), programStarted: true, lastInput: lastInput)
            return .checkSession(.idle(since: lastInput))
        case .idle, .checking, .covered, .hangingUp, .ended:
            return .none
        }
    }

    // MARK: - Requests, focus, size

    enum RequestAction: Equatable, Sendable {
        /// Ask the store (the session was marked locked, or sent to the background), then acknowledge.
        case checkSession(CheckReason)
        /// Already covered (or not started): acknowledge at once.
        case acknowledge
    }

    /// The watcher or a lifecycle event asks the owner to look at the session now.
    mutating func lockRequested() -> RequestAction {
        switch state {
        case .open(let lastInput):
            state = .checking(.request, programStarted: true, lastInput: lastInput)
            return .checkSession(.request)
        case .idle, .checking, .covered, .hangingUp, .ended:
            return .acknowledge
        }
    }

    enum FocusAction: Equatable, Sendable {
        case record(LifecycleEvent)
        case none
    }

    /// A focus report of the outer terminal (mode 1004): focus out is will-resign-active, focus
    /// in did-become-active, as tmux's focus hooks send them. Neither unlocks anything.
    func focusChanged(focused: Bool) -> FocusAction {
        switch state {
        case .open, .covered(programStarted: true), .checking(_, programStarted: true, _):
            return .record(focused ? .didBecomeActive : .willResignActive)
        case .idle, .checking(_, programStarted: false, _), .covered(programStarted: false), .hangingUp, .ended:
            return .none
        }
    }

    enum ResizeAction: Equatable, Sendable {
        /// Give the program's terminal and the screen model the outer size (the program redraws
        /// into the model; while covered, nothing of it shows).
        case resizeProgram
        case none
    }

    func resized() -> ResizeAction {
        switch state {
        case .ended, .hangingUp, .idle: .none
        case .checking, .open, .covered: .resizeProgram
        }
    }

    // MARK: - Ends

    enum HangUpAction: Equatable, Sendable {
        /// Hang up the program (SIGHUP, as a terminal that closes) and end the gate, then wait for the program.
        case hangUpProgram
        /// Nothing runs: end now (the gate, if any, is ended).
        case exit
        case none
    }

    /// The outer terminal hung up, or the owner got SIGHUP or SIGTERM: the program ends as at a
    /// terminal close, and nothing of it is ever shown again.
    mutating func hangUp() -> HangUpAction {
        switch state {
        case .ended, .hangingUp:
            return .none
        case .idle, .checking(_, programStarted: false, _), .covered(programStarted: false):
            state = .ended
            return .exit
        case .checking(_, programStarted: true, _), .covered(programStarted: true), .open:
            state = .hangingUp
            return .hangUpProgram
        }
    }

    enum ProgramExitAction: Equatable, Sendable {
        /// Write what is left of its output (when shown), give the terminal back and exit with its status.
        case exit(showRemainingOutput: Bool)
        /// End the gate first and clear the screen (nothing of the session shows), then exit with its status.
        case endGateAndExit
    }

    /// The program ended (its status is the owner's).
    mutating func programExited() -> ProgramExitAction {
        let previous = state
        state = .ended
        switch previous {
        case .covered: return .endGateAndExit
        case .open: return .exit(showRemainingOutput: true)
        case .idle, .checking, .hangingUp, .ended: return .exit(showRemainingOutput: false)
        }
    }

    /// Whether keys are read from the outer terminal now (the gate reads them while it runs).
    var readsInput: Bool {
        switch state {
        case .open: true
        case .idle, .checking, .covered, .hangingUp, .ended: false
        }
    }
}
