import Foundation
import Testing

/// The resume gate in a real tmux server configured with `touchgate tmux-conf`, seen and typed at
/// through a real client in a second (outer) tmux server, against real PAM and a real store.
@Suite struct TmuxGateTests {
    static let marker = "MARKER-BEHIND-THE-GATE"
    static let finger = "alice-finger"
    static let passcode = "alice-passcode"
    /// What the gate's cover always shows.
    static let gateTitle = "touchgate: this session is locked"

    /// A world with the lock on and alice enrolled, and an inner tmux session `s` whose pane shows
    /// the marker (locked since its launch, as the lock was on when it was created).
    static func lockedSession(
        grace: Int = 0, relaxed: Bool = false, extraConfiguration: String = ""
    ) throws -> (TestEnvironment, TmuxHarness, String) {
        let world = try TestEnvironment()
        if relaxed { try world.gateRelaxLockout() }
        if grace > 0 {
            let set = try world.run(["config", "set", "grace-seconds", String(grace)])
            guard set.status == 0 else { throw TestFailure("config set grace-seconds failed: \(set)") }
        }
        try world.enableAndEnroll()
        let tmux = try TmuxHarness(world: world, extraConfiguration: extraConfiguration)
        try tmux.startInnerSession("s", command: "printf '\(marker)\\n'; exec /bin/sh")
        try gateEventually("the marker in the pane") { try tmux.innerPane("s").contains(marker) }
        return (world, tmux, try tmux.sessionID("s"))
    }

    /// Waits for the gate's biometric prompt on the client's screen, and checks nothing of the session shows.
    @discardableResult
    static func waitForGate(_ tmux: TmuxHarness, pane: String = "o") throws -> String {
        try tmux.waitForScreen(containing: gateTitle, pane: pane)
        let screen = try tmux.waitForScreen(containing: "Password:", pane: pane)
        #expect(!screen.contains(marker), "the session shows behind the gate:\n\(screen)")
        return screen
    }

    /// Unlocks with the finger at a biometric prompt and waits for the session to show again.
    static func unlockWithFinger(_ tmux: TmuxHarness, pane: String = "o") throws {
        try waitForGate(tmux, pane: pane)
        try tmux.typeLine(finger, pane: pane)
        try tmux.waitForScreen(containing: marker, pane: pane)
    }

    /// Waits until the screen shows the `count`th `Password:` prompt: each prompt discards what
    /// was typed before it, so an answer typed earlier (a loaded machine is slow to ask again)
    /// would be lost.
    static func waitForPrompt(_ tmux: TmuxHarness, number count: Int, pane: String = "o") throws {
        try gateEventually("prompt number \(count) on the screen", timeout: 30) {
            try tmux.screen(pane).components(separatedBy: "Password:").count - 1 >= count
        }
    }

    /// For `duration`, the screen keeps showing the gate and never the session.
    static func expectGateHolds(_ tmux: TmuxHarness, for duration: TimeInterval = 0.5, pane: String = "o") throws {
        let end = Date().addingTimeInterval(duration)
        repeat {
            let screen = try tmux.screen(pane)
            #expect(screen.contains(gateTitle), "the gate is gone:\n\(screen)")
            #expect(!screen.contains(marker) && !screen.contains("CLIENT-EXITED"), "the session shows:\n\(screen)")
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < end
    }

    /// `text` has a line that is exactly `line` (a command's output, not the command typed).
    static func hasLine(_ text: String, _ line: String) -> Bool {
        text.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == line }
    }

    static func expectLocked(_ world: TestEnvironment, _ id: String, _ locked: Bool = true,
                             sourceLocation: SourceLocation = #_sourceLocation) throws {
        let status = try world.gateSessionStatus(id)
        #expect(status?.locked == locked, "session \(id): \(String(describing: status))", sourceLocation: sourceLocation)
    }

    @Test func theSnippetLoadsIntoTmuxWithoutErrors() throws {
        let world = try TestEnvironment()
        let tmux = try TmuxHarness(world: world)
        defer { tmux.shutdown() }
        try tmux.startInnerSession("s")
        let again = try tmux.inner("source-file", tmux.configuration)
        #expect(again.stderr.isEmpty, "\(again)")
        let hooks = try tmux.inner("show-hooks", "-g").stdout
        for hook in ["session-created", "client-session-changed", "client-detached", "client-focus-in", "client-focus-out"] {
            #expect(hooks.contains("\(hook)[0] "), "\(hook) missing in:\n\(hooks)")
        }
        // The client is replaced inside tmux before anything else: no process start stands in its
        // way, and nothing is recorded before it.
        #expect(hooks.contains("client-session-changed[0] set-option -Fg @touchgate-way "), "\(hooks)")
        #expect(hooks.contains("client-session-changed[6] if-shell -F \"#{==:#{@touchgate-way},replace}\" \"set-hook -R @touchgate-replace\""), "\(hooks)")
        #expect(hooks.contains("client-session-changed[10] if-shell -F \"#{!=:#{@touchgate-way},replace}\" \"run-shell -b "), "\(hooks)")
        // No hook makes tmux wait for a process: the next client's hook would wait behind it.
        #expect(hooks.components(separatedBy: "run-shell ").count == hooks.components(separatedBy: "run-shell -b ").count, "\(hooks)")
        #expect(try tmux.inner("show-options", "-g", "focus-events").stdout.contains("on"))
        #expect(try tmux.inner("show-options", "-g", "lock-after-time").stdout.contains("900"))
    }

    @Test func ctrlCCtrlZCtrlBackslashAndCtrlDLeaveItLocked() throws {
        let (world, tmux, id) = try Self.lockedSession()
        defer { tmux.shutdown() }
        try tmux.attach("s")
        try Self.waitForGate(tmux)
        var cancels = try world.gateAuditCount(factor: "biometric", outcome: "userCancel")
        for key in ["C-c", "C-z", "C-\\"] {
            try tmux.type(key)
            // With ISIG off the key is a character: it cancels the line at once, and the gate asks again.
            try gateEventually("the \(key) key to cancel the prompt") {
                try world.gateAuditCount(factor: "biometric", outcome: "userCancel") == cancels + 1
            }
            cancels += 1
            try tmux.waitForScreen(containing: "Cancelled; the session stays locked.")
            try Self.expectGateHolds(tmux, for: 0.2)
            try Self.expectLocked(world, id)
        }
        // Ctrl-D (end of input) on the terminal asks again, once, and reads the next answer.
        try tmux.type("C-d")
        try gateEventually("the end of input to cancel the prompt") {
            try world.gateAuditCount(factor: "biometric", outcome: "userCancel") == cancels + 1
        }
        try Self.expectGateHolds(tmux)
        #expect(try world.gateAuditCount(factor: "biometric", outcome: "userCancel") == cancels + 1)
        try Self.unlockWithFinger(tmux)
        try Self.expectLocked(world, id, false)
    }

    @Test func aWrongSecretLeavesItLockedAndTheRightOneUnlocks() throws {
        let (world, tmux, id) = try Self.lockedSession()
        defer { tmux.shutdown() }
        try tmux.attach("s")
        try Self.waitForGate(tmux)

        try tmux.typeLine("not-the-finger")
        try gateEventually("a biometric failure") {
            try world.gateAuditCount(factor: "biometric", outcome: "authenticationFailed") == 1
        }
        try Self.expectGateHolds(tmux)
        try Self.expectLocked(world, id)

        // The wrong try is said, and the cover drawn again with the attempts left; then the next prompt.
        let redrawn = try tmux.waitForScreen(containing: "Not recognized; 4 biometric tries left before a lockout.")
        #expect(redrawn.contains("Biometric attempts left: 4 of 5."), "\(redrawn)")
        try Self.waitForPrompt(tmux, number: 1)
        // An empty answer falls back to the passcode.
        try tmux.typeLine("")
        try tmux.waitForScreen(containing: "(passcode for alice)")
        try Self.waitForPrompt(tmux, number: 2)
        try tmux.typeLine("not-the-passcode")
        try gateEventually("a passcode failure") {
            try world.gateAuditCount(factor: "passcode", outcome: "authenticationFailed") == 1
        }
        try Self.expectGateHolds(tmux)
        try Self.expectLocked(world, id)

        try tmux.waitForScreen(containing: "Wrong passcode; 4 tries left before a wait of 60 s.")
        try Self.waitForPrompt(tmux, number: 1)
        try tmux.typeLine(Self.passcode)
        let screen = try tmux.waitForScreen(containing: Self.marker)
        #expect(!screen.contains(Self.gateTitle))
        let status = try world.gateSessionStatus(id)
        #expect(status?.state == "active" && status?.locked == false, "\(String(describing: status))")
        // The session takes keys again.
        try tmux.typeLine("echo TYPED-AFTER-UNLOCK")
        try gateEventually("the session to run a command") {
            Self.hasLine(try tmux.innerPane("s"), "TYPED-AFTER-UNLOCK")
        }
    }

    /// The wiring of a return that the grace does not cover: the hooks' detach and attach, the
    /// gate on the client. With grace-seconds 0 the trip away alone locks; a trip that outlasts a
    /// longer grace, by the clock, is TmuxHookEventsTests' (a set clock, no sleeping through it).
    @Test func detachAndAttachAfterTheGracePeriodLocks() throws {
        let (world, tmux, id) = try Self.lockedSession(grace: 0)
        defer { tmux.shutdown() }
        try tmux.attach("s")
        try Self.unlockWithFinger(tmux)

        try tmux.type("C-b", "d")
        try tmux.waitForScreen(containing: "CLIENT-EXITED")
        try gateEventually("the session in the background") { try world.gateSessionStatus(id)?.state == "background" }

        try tmux.attach("s")
        try Self.waitForGate(tmux)
        try Self.expectGateHolds(tmux)
        try Self.expectLocked(world, id)
        try Self.unlockWithFinger(tmux)
        try Self.expectLocked(world, id, false)
    }

    @Test func detachAndAttachWithinTheGracePeriodDoesNotLock() throws {
        let (world, tmux, id) = try Self.lockedSession(grace: 60)
        defer { tmux.shutdown() }
        try tmux.attach("s")
        try Self.unlockWithFinger(tmux)
        let attempts = try world.sqlite("SELECT count(*) FROM audit WHERE factor IN ('biometric', 'passcode')")

        try tmux.type("C-b", "d")
        try tmux.waitForScreen(containing: "CLIENT-EXITED")
        try gateEventually("the session in the background") { try world.gateSessionStatus(id)?.state == "background" }

        try tmux.attach("s")
        try tmux.waitForScreen(containing: Self.marker)
        try gateEventually("the session active again") { try world.gateSessionStatus(id)?.state == "active" }
        try Self.expectLocked(world, id, false)
        // Nothing was asked.
        #expect(try world.sqlite("SELECT count(*) FROM audit WHERE factor IN ('biometric', 'passcode')") == attempts)
        #expect(!(try tmux.screen()).contains(Self.gateTitle))
    }

    @Test func theScreenBehindTheGateIsNeverVisible() throws {
        let (world, tmux, id) = try Self.lockedSession()
        defer { tmux.shutdown() }
        // From the moment the client starts until the gate asks, no screen shows the session.
        try tmux.attach("s")
        try gateEventually("the gate") {
            let screen = try tmux.screen()
            #expect(!screen.contains(Self.marker), "the session shows while the lock starts:\n\(screen)")
            return screen.contains("Password:")
        }
        try Self.unlockWithFinger(tmux)

        // A lock of a shown session (lock-after-time, the lock key) covers it the same way.
        try tmux.inner("lock-session", "-t", "s")
        try Self.waitForGate(tmux)
        try Self.expectLocked(world, id)
        let screen = try tmux.screen()
        #expect(!screen.contains(Self.marker), "\(screen)")
        #expect(screen.contains("session: tmux session \"s\"") && screen.contains("user:    alice"), "\(screen)")
        try tmux.typeLine("")
        try tmux.waitForScreen(containing: "(passcode for alice)")
        try tmux.typeLine(Self.passcode)
        try tmux.waitForScreen(containing: Self.marker)
        try Self.expectLocked(world, id, false)
    }

    /// Keys and Ctrl-C typed while the client attaches: a Ctrl-C may end the client before the
    /// gate that replaces it ignores SIGINT (then nothing shows and the next attach asks), but no
    /// key reaches the session and nothing of it shows.
    @Test func keysTypedWhileTheLockStartsNeverReachTheSession() throws {
        let (world, tmux, id) = try Self.lockedSession(relaxed: true)
        defer { tmux.shutdown() }
        try tmux.attach("s")
        for _ in 0..<20 {
            try tmux.typeLine("echo REACHED-THE-SESSION")
            try tmux.type("C-c")
        }
        var screen = ""
        try gateEventually("the gate, or the client gone") {
            screen = try tmux.screen()
            return screen.contains("Password:") || screen.contains("CLIENT-EXITED") || screen.contains(Self.marker)
        }
        #expect(!screen.contains(Self.marker), "\(screen)")
        if screen.contains("CLIENT-EXITED") { try tmux.attach("s") }
        try Self.waitForGate(tmux)
        try Self.expectGateHolds(tmux, for: 1)
        #expect(!(try tmux.innerPane("s")).contains("REACHED-THE-SESSION"))
        try Self.expectLocked(world, id)
    }

    @Test func anIdleLockRunsTheGate() throws {
        let (world, tmux, id) = try Self.lockedSession(extraConfiguration: "set -g lock-after-time 1")
        defer { tmux.shutdown() }
        try tmux.attach("s")
        try Self.unlockWithFinger(tmux)
        try Self.expectLocked(world, id, false)
        // Nothing typed for a second: tmux locks the client and the gate locks the session.
        try Self.waitForGate(tmux)
        try gateEventually("the session locked") { try world.gateSessionStatus(id)?.locked == true }
        try Self.unlockWithFinger(tmux)
    }

    @Test func aSecondClientWaitsInsteadOfPromptingAgain() throws {
        let (world, tmux, id) = try Self.lockedSession()
        defer { tmux.shutdown() }
        try tmux.attach("s", pane: "o")
        try Self.waitForGate(tmux, pane: "o")
        try tmux.attach("s", pane: "o2")
        try tmux.waitForScreen(containing: "Another terminal is unlocking this session", pane: "o2")
        #expect(!(try tmux.screen("o2")).contains(Self.marker))
        // One prompt only: a single attempt is waiting for an answer.
        #expect(try world.gateAuditCount(factor: "biometric", outcome: "pending") == 1)

        try tmux.typeLine(Self.finger, pane: "o")
        try tmux.waitForScreen(containing: Self.marker, pane: "o")
        try tmux.waitForScreen(containing: Self.marker, pane: "o2")
        try Self.expectLocked(world, id, false)
    }

    @Test func aGateOnATerminalKeepsHoldingWhenTheSessionGoesToTheBackground() throws {
        let (world, tmux, id) = try Self.lockedSession()
        defer { tmux.shutdown() }
        try tmux.attach("s")
        try Self.waitForGate(tmux)
        // The gate owns the session's prompt: did-enter-background sends it appCancel.
        try world.gateEvents(["will-resign-active", "did-enter-background"], session: id)
        // What sent it away is said: nobody cancelled anything.
        let screen = try tmux.waitForScreen(containing: "The session was sent to the background (did-enter-background): it stays locked.")
        #expect(!screen.contains("Cancelled"), "\(screen)")
        try Self.expectGateHolds(tmux)
        try Self.expectLocked(world, id)
        try Self.unlockWithFinger(tmux)
        try Self.expectLocked(world, id, false)
    }

    @Test func aNewSessionIsLockedAtLaunch() throws {
        let (world, tmux, _) = try Self.lockedSession()
        defer { tmux.shutdown() }
        // `tmux new-session` from a terminal: the new session is locked from its launch.
        try tmux.attach(newSession: "n", command: "printf 'NEW-SESSION\\n'; exec /bin/sh")
        let screen = try Self.waitForGate(tmux)
        let id = try tmux.sessionID("n")
        #expect(screen.contains("session: tmux session \"n\""), "\(screen)")
        try Self.expectLocked(world, id)
        try tmux.typeLine(Self.finger)
        try tmux.waitForScreen(containing: "NEW-SESSION")
        try Self.expectLocked(world, id, false)
    }

    @Test func closingTheTerminalEndsTheGateAndTheSessionStaysLocked() throws {
        let (world, tmux, id) = try Self.lockedSession()
        defer { tmux.shutdown() }
        try tmux.attach("s")
        try Self.waitForGate(tmux)
        let owner = try world.sqlite("SELECT prompt_pid FROM sessions WHERE id = '\(id)'")
        let gate = try #require(pid_t(owner), "no prompt owner recorded: '\(owner)'")
        #expect(kill(gate, 0) == 0)
        // The outer server goes away with the terminal the client and its gate were on.
        try tmux.outer("kill-server")
        try gateEventually("the gate to end after its terminal hung up") { kill(gate, 0) != 0 }
        try Self.expectLocked(world, id)
        #expect(try world.sqlite("SELECT prompt_pid IS NULL FROM sessions WHERE id = '\(id)'") == "1")
    }

    /// tmux shows the session whenever its lock-command exits: a gate that is killed (SIGTERM
    /// ends it with systemCancel, SIGKILL at once) starts again, and the session never shows.
    @Test(arguments: [SIGTERM, SIGKILL])
    func killingTheGateNeverShowsTheSession(signal: Int32) throws {
        let (world, tmux, id) = try Self.lockedSession()
        defer { tmux.shutdown() }
        try tmux.attach("s")
        try Self.waitForGate(tmux)
        func gatePID(excluding old: pid_t?) throws -> pid_t {
            var pid: pid_t?
            try gateEventually("a gate holding \(id)") {
                pid = pid_t(try world.sqlite("SELECT prompt_pid FROM sessions WHERE id = '\(id)'"))
                return pid != nil && pid != old && kill(pid!, 0) == 0
            }
            return pid!
        }
        var gate = try gatePID(excluding: nil)
        for _ in 0..<2 {
            #expect(kill(gate, signal) == 0)
            // Until the next gate holds the terminal, the client shows the notice, never the session.
            var next: pid_t?
            try gateEventually("the gate to start again") {
                let screen = try tmux.screen()
                if screen.contains(Self.marker) || screen.contains("CLIENT-EXITED") {
                    throw TestFailure("the session shows after the gate was killed:\n\(screen)")
                }
                next = pid_t(try world.sqlite("SELECT prompt_pid FROM sessions WHERE id = '\(id)'"))
                return next != nil && next != gate && screen.contains("Password:")
            }
            gate = try gatePID(excluding: gate)
            try Self.expectGateHolds(tmux)
            try Self.expectLocked(world, id)
        }
        try Self.unlockWithFinger(tmux)
        try Self.expectLocked(world, id, false)
    }

    /// tmux never runs lock-command for a control-mode client (`tmux -C`), so the snippet detaches
    /// one unless the lock is off.
    @Test func aControlModeClientIsDetachedWhileTheLockIsOn() throws {
        let (_, tmux, _) = try Self.lockedSession()
        defer { tmux.shutdown() }
        let control = try RunningProcess(["/usr/bin/tmux", "-S", tmux.innerSocket, "-C", "attach-session", "-t", "s"],
                                         environment: tmux.environment)
        let result = try control.wait(timeout: 20)
        #expect(result.stdout.contains("%exit"), "\(result)")
        #expect(!result.stdout.contains(Self.marker), "\(result)")
        #expect(try tmux.inner("list-clients", "-F", "#{client_control_mode}").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)

        // With the lock off, a control client stays.
        let open = try TestEnvironment()
        let plain = try TmuxHarness(world: open)
        defer { plain.shutdown() }
        try plain.startInnerSession("s")
        let stays = try RunningProcess(["/usr/bin/tmux", "-S", plain.innerSocket, "-C", "attach-session", "-t", "s"],
                                       environment: plain.environment)
        try gateEventually("the control client to attach") {
            try plain.inner("list-clients", "-F", "#{client_control_mode}").stdout.contains("1")
        }
        // Long enough for the hooks to have run (they run before the client's own commands).
        Thread.sleep(forTimeInterval: 1.5)
        #expect(stays.isRunning)
        stays.closeInput()
        _ = try stays.wait(timeout: 10)
    }

    @Test func switchingToAnotherSessionGoesThroughItsGate() throws {
        let (world, tmux, first) = try Self.lockedSession()
        defer { tmux.shutdown() }
        try tmux.startInnerSession("t", command: "printf 'OTHER-SESSION\\n'; exec /bin/sh")
        let second = try tmux.sessionID("t")
        try tmux.attach("s")
        try Self.unlockWithFinger(tmux)
        let client = try tmux.attachedClient()

        // t was locked at its launch: switching to it asks first.
        try tmux.inner("switch-client", "-c", client, "-t", "t")
        let screen = try Self.waitForGate(tmux)
        #expect(screen.contains("session: tmux session \"t\"") && !screen.contains("OTHER-SESSION"), "\(screen)")
        try tmux.typeLine(Self.finger)
        try tmux.waitForScreen(containing: "OTHER-SESSION")
        try Self.expectLocked(world, second, false)

        // Leaving s sent it to the background; with grace-seconds 0 coming back asks again.
        try gateEventually("s in the background") { try world.gateSessionStatus(first)?.state == "background" }
        try tmux.inner("switch-client", "-c", client, "-t", "s")
        #expect(try Self.waitForGate(tmux).contains("session: tmux session \"s\""))
        try Self.unlockWithFinger(tmux)
    }

    /// The gate replaces a client while it asks; after the unlock the client comes back as it
    /// was attached: read-only stays read-only.
    @Test func aReadOnlyClientComesBackReadOnly() throws {
        let (_, tmux, _) = try Self.lockedSession()
        defer { tmux.shutdown() }
        try tmux.attach("s", readOnly: true)
        try Self.unlockWithFinger(tmux)
        _ = try tmux.attachedClient()
        #expect(try tmux.inner("list-clients", "-F", "#{client_readonly}").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        // A read-only client's keys do not reach the session.
        try tmux.typeLine("echo TYPED-READ-ONLY")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(!Self.hasLine(try tmux.innerPane("s"), "TYPED-READ-ONLY"))
    }

    /// A session that ends with its last client (`destroy-unattached`) is not ended by the gate
    /// that replaced its only client (the client that made it, here), and ends with its last
    /// client again once let in.
    @Test func aSessionThatEndsWithItsLastClientOutlivesItsGate() throws {
        let (_, tmux, _) = try Self.lockedSession()
        defer { tmux.shutdown() }
        // Unattached sessions end at once (s too): the server must outlive them.
        try tmux.inner("set-option", "-s", "exit-empty", "off")
        try tmux.inner("set-option", "-g", "destroy-unattached", "on")
        try tmux.attach(newSession: "n", command: "printf 'NEW-SESSION\\n'; exec /bin/sh")
        try Self.waitForGate(tmux)
        try Self.expectGateHolds(tmux)
        try tmux.inner("has-session", "-t", "n")
        try tmux.typeLine(Self.finger)
        try tmux.waitForScreen(containing: "NEW-SESSION")
        _ = try tmux.attachedClient()
        #expect(try tmux.inner("show-options", "-v", "-t", "n", "destroy-unattached").stdout.contains("on"))
        try tmux.type("C-b", "d")
        try tmux.waitForScreen(containing: "CLIENT-EXITED")
        try gateEventually("n to end with its last client") {
            (try? tmux.inner("has-session", "-t", "n")) == nil
        }
    }

    /// A server that ends with its last client (`exit-unattached`) would end while the gate
    /// replaced that client: its clients are locked in place (the client stays the same process).
    @Test func aServerThatEndsWithItsLastClientLocksItInPlace() throws {
        let (_, tmux, _) = try Self.lockedSession()
        defer { tmux.shutdown() }
        try tmux.startInnerSession("t", command: "printf 'OTHER-SESSION\\n'; exec /bin/sh")
        try tmux.attach("s")
        try Self.unlockWithFinger(tmux)
        let client = try tmux.attachedClient()
        let pid = try tmux.inner("list-clients", "-F", "#{client_pid}").stdout
        try tmux.inner("set-option", "-s", "exit-unattached", "on")
        try tmux.inner("switch-client", "-c", client, "-t", "t")
        let screen = try Self.waitForGate(tmux)
        #expect(!screen.contains("OTHER-SESSION"), "\(screen)")
        #expect(try tmux.inner("list-clients", "-F", "#{client_pid}").stdout == pid)
        try tmux.typeLine(Self.finger)
        try tmux.waitForScreen(containing: "OTHER-SESSION")
        #expect(try tmux.inner("list-clients", "-F", "#{client_pid}").stdout == pid)
    }

    // MARK: - The shell integration

    /// The gate run in a pane's real interactive bash (as the lock-command runs it). Inside tmux
    /// no shell hook gates a prompt any more (`shell-init` leaves a tmux pane alone: the client
    /// lock is the lock there), so the gate is typed.
    @Test func theGateInARealInteractiveBashInATmuxPane() throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        let tmux = try TmuxHarness(world: world)
        defer { tmux.shutdown() }
        try tmux.startInnerSession("s", command: "PS1='READY$ ' exec /bin/bash --norc --noprofile -i")
        let id = try tmux.sessionID("s")
        func pane() throws -> String { try tmux.innerPane("s") }
        func keys(_ keys: String..., literal: Bool = false) throws {
            try tmux.tmux(tmux.innerSocket, ["send-keys", "-t", "s"] + (literal ? ["-l"] : []) + keys)
        }
        func waitForPane(_ text: String) throws {
            var last = ""
            do {
                try gateEventually("'\(text)' in the pane") { last = try pane(); return last.contains(text) }
            } catch {
                throw TestFailure("'\(text)' never appeared in the pane:\n\(last)")
            }
        }
        try waitForPane("READY$")
        // The session (tmux-<pid>-$0, from $TMUX) was launched by the session-created hook with the lock on.
        try tmux.inner("send-keys", "-t", "s", "-l", "'\(TestEnvironment.binary)' gate; clear")
        try keys("Enter")
        try waitForPane(Self.gateTitle)
        // Named as the user knows it, not by its id \(id).
        try waitForPane("session: tmux session \"s\"")
        try waitForPane("Password:")

        // The keys that would end a foreground job do nothing to the gate.
        for key in ["C-c", "C-z", "C-\\"] {
            try keys(key)
            Thread.sleep(forTimeInterval: 0.3)
            #expect(try pane().contains(Self.gateTitle))
        }
        try waitForPane("Cancelled; the session stays locked.")
        #expect(try world.gateSessionStatus(id)?.locked == true)
        try keys(Self.finger, literal: true)
        try keys("Enter")
        try gateEventually("the prompt back") { try world.gateSessionStatus(id)?.locked == false }
        try waitForPane("READY$")
        #expect(!(try pane()).contains(Self.gateTitle))

        // The shell's own Ctrl-C works again after the gate: it ends a foreground job.
        try keys("sleep 30", literal: true)
        try keys("Enter")
        Thread.sleep(forTimeInterval: 0.3)
        try keys("C-c")
        try keys("echo CTRL-C-STILL-WORKS", literal: true)
        try keys("Enter")
        do {
            // Up to the prompt after it, so the events below do not race the shell.
            try gateEventually("bash to run the next command and prompt again", timeout: 5) {
                let screen = try pane()
                let lines = screen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                return Self.hasLine(screen, "CTRL-C-STILL-WORKS") && lines.last { !$0.isEmpty } == "READY$"
            }
        } catch {
            throw TestFailure("\(error); the pane:\n\(try pane())")
        }

        // The session goes to the background (grace-seconds 0 locks it): the next gate asks.
        try world.gateEvents(["will-resign-active", "did-enter-background"], session: id)
        try keys("'\(TestEnvironment.binary)' gate; clear", literal: true)
        try keys("Enter")
        try waitForPane(Self.gateTitle)
        // Enter only once the prompt reads: each prompt discards what was typed before it.
        try waitForPane("Password:")
        try keys("Enter")
        try waitForPane("(passcode for alice)")
        try keys(Self.passcode, literal: true)
        try keys("Enter")
        try gateEventually("the session unlocked") { try world.gateSessionStatus(id)?.locked == false }
        try keys("echo BACK-IN-THE-SHELL", literal: true)
        try keys("Enter")
        try gateEventually("the shell to run a command") {
            Self.hasLine(try pane(), "BACK-IN-THE-SHELL")
        }
        #expect(try world.gateSessionStatus(id)?.state == "active")
    }
}
