import Foundation
import Testing

/// `touchgate event`, `touchgate gate` and `auth --session` end to end, without tmux: the real
/// binary against real libpam (the test stacks through `pam_start_confdir`) and a real store.
@Suite struct GateTests {
    static let finger = "alice-finger"
    static let passcode = "alice-passcode"

    /// A world with the lock on, alice enrolled, and session `id` launched (so locked and inactive).
    static func launchedSession(_ id: String = "term-1", configure: [(String, String)] = []) throws -> TestEnvironment {
        let world = try TestEnvironment()
        for (key, value) in configure {
            let set = try world.run(["config", "set", key, value])
            guard set.status == 0 else { throw TestFailure("config set \(key) failed: \(set)") }
        }
        try world.enableAndEnroll()
        try world.gateEvents(["did-finish-launching"], session: id)
        return world
    }

    /// Runs touchgate with no controlling terminal (`setsid`) and standard input from a closed pipe,
    /// so any gate that is not on its fast path ends with notInteractive instead of asking.
    static func runDetached(_ world: TestEnvironment, _ arguments: [String]) throws -> RunResult {
        try TestEnvironment.execute("/usr/bin/setsid", ["-w", TestEnvironment.binary] + arguments,
                                    environment: world.environment)
    }

    static func status(_ world: TestEnvironment, _ id: String) throws -> (state: String, locked: Bool) {
        guard let status = try world.gateSessionStatus(id) else { throw TestFailure("session \(id) is not in status") }
        return status
    }

    // MARK: - The fast path

    @Test func theFastPathExitsAtOnceWhenTheLockIsOff() throws {
        let world = try TestEnvironment()
        try world.gateEvents(["did-finish-launching", "did-become-active"], session: "term-1")
        let before = try world.gateSessionRow("term-1")
        for arguments in [["gate", "--session", "term-1"], ["gate", "--lock", "--session", "term-1"],
                          ["gate", "--idle-since", "0", "--session", "term-1"], ["gate", "--session", "never-seen"]] {
            let result = try Self.runDetached(world, arguments)
            #expect(result.status == 0, "\(arguments): \(result)")
            #expect(result.stderr.isEmpty, "\(result)")
        }
        // Only read: nothing was written, not even the session never seen.
        #expect(try world.gateSessionRow("term-1") == before)
        #expect(try world.sqlite("SELECT count(*) FROM sessions") == "1")
        #expect(world.calls("touchgate") + world.calls("touchgate-biometric") == 0)
    }

    @Test func theFastPathExitsAtOnceForAnActiveUnlockedSession() throws {
        let world = try Self.launchedSession()
        let unlock = try world.run(["-S", "gate", "--session", "term-1"], input: Self.finger + "\n")
        #expect(unlock.status == 0, "\(unlock)")
        let after = try Self.status(world, "term-1")
        #expect(after.state == "active" && !after.locked)
        let before = try world.gateSessionRow("term-1")
        let calls = world.calls("touchgate-biometric")

        // No terminal and no input: only the fast path can exit 0 here.
        let result = try Self.runDetached(world, ["gate", "--session", "term-1"])
        #expect(result.status == 0, "\(result)")
        #expect(try world.gateSessionRow("term-1") == before)
        #expect(world.calls("touchgate-biometric") == calls)
    }

    /// While the lock is on, a session the store does not know (its launch was never recorded:
    /// the event failed, or nothing sent it) is locked, never shown on trust; so is one whose row
    /// says it is not running. The gate records the launch itself.
    @Test func anUnknownOrNotRunningSessionIsLockedWhileTheLockIsOn() throws {
        let world = try Self.launchedSession()
        let never = try Self.runDetached(world, ["gate", "--session", "never-seen"])
        #expect(never.status == 11, "\(never)")
        #expect(try Self.status(world, "never-seen") == (state: "inactive", locked: true))
        #expect(try world.gateAuditCount(factor: "lifecycle", outcome: "did-finish-launching") == 2)

        // A session that ended unlocked and whose next launch was not recorded.
        #expect(try world.run(["-S", "gate", "--session", "term-1"], input: Self.finger + "\n").status == 0)
        try world.gateEvents(["will-resign-active", "will-terminate"], session: "term-1")
        #expect(try Self.status(world, "term-1") == (state: "notRunning", locked: false))
        let ended = try Self.runDetached(world, ["gate", "--session", "term-1"])
        #expect(ended.status == 11, "\(ended)")
        #expect(try Self.status(world, "term-1").locked)
        let unlock = try world.run(["-S", "gate", "--session", "never-seen"], input: Self.finger + "\n")
        #expect(unlock.status == 0, "\(unlock)")
        #expect(try Self.status(world, "never-seen") == (state: "active", locked: false))
    }

    /// A launch on a row an earlier process left behind starts the session afresh: a shell that
    /// died without will-terminate, or a tmux session id (`tmux-<pid>-$N`) a new server reuses.
    @Test func aLaunchOverAStaleActiveRowLocks() throws {
        let world = try Self.launchedSession()
        #expect(try world.run(["-S", "gate", "--session", "term-1"], input: Self.finger + "\n").status == 0)
        #expect(try Self.status(world, "term-1") == (state: "active", locked: false))
        let launch = try world.run(["--json", "event", "did-finish-launching", "--session", "term-1"])
        #expect(launch.status == 0, "\(launch)")
        #expect(try Self.status(world, "term-1") == (state: "inactive", locked: true))
        #expect(try Self.runDetached(world, ["gate", "--session", "term-1"]).status == 11)

        // The tmux session-created hook, for a session id a crashed server's session left active.
        world.extraEnvironment["TMUX"] = "/tmp/none/default,4242,0"
        try world.gateEvents(["did-finish-launching"], session: "tmux-4242-$1")
        #expect(try world.run(["-S", "gate", "--session", "tmux-4242-$1"], input: Self.finger + "\n").status == 0)
        #expect(try Self.status(world, "tmux-4242-$1") == (state: "active", locked: false))
        let hook = try world.run(["tmux-hook", "session-created", "", "$1"])
        #expect(hook.status == 0, "\(hook)")
        #expect(try Self.status(world, "tmux-4242-$1") == (state: "active", locked: true))
    }

    @Test func aLockedSessionNeverPassesWithoutATerminal() throws {
        let world = try Self.launchedSession()
        let result = try Self.runDetached(world, ["gate", "--session", "term-1"])
        #expect(result.status == 11, "\(result)")
        #expect(try Self.status(world, "term-1").locked)
    }

    @Test func anIdleShellLocksAnActiveSession() throws {
        let world = try Self.launchedSession(configure: [("idle-seconds", "60")])
        #expect(try world.run(["-S", "gate", "--session", "term-1"], input: Self.finger + "\n").status == 0)
        let now = Int(Date().timeIntervalSince1970)
        // Idle for less than idle-seconds: the fast path.
        #expect(try Self.runDetached(world, ["gate", "--idle-since", String(now - 5), "--session", "term-1"]).status == 0)
        #expect(try Self.status(world, "term-1").locked == false)
        // Idle for longer: locked, and a cancelled prompt leaves it locked.
        let idle = try world.run(["-S", "gate", "--idle-since", String(now - 120), "--session", "term-1"], input: "")
        #expect(idle.status == 2, "\(idle)")
        #expect(try Self.status(world, "term-1").locked)
        let unlock = try world.run(["-S", "gate", "--session", "term-1"], input: Self.finger + "\n")
        #expect(unlock.status == 0, "\(unlock)")
        #expect(try Self.status(world, "term-1").locked == false)
    }

    // MARK: - The locked gate in -S mode

    @Test func endOfInputExits2AndTheSessionStaysLocked() throws {
        let world = try Self.launchedSession()
        for input in ["", "not-the-finger\n", "\nnot-the-passcode\n"] {
            let result = try world.run(["-S", "gate", "--session", "term-1"], input: input)
            #expect(result.status == 2, "input \(input.debugDescription): \(result)")
            #expect(result.stderr.contains("touchgate: this session is locked"), "\(result)")
            #expect(result.stderr.contains("session: term-1"), "\(result)")
            #expect(try Self.status(world, "term-1").locked)
        }
        let unlock = try world.run(["-S", "gate", "--session", "term-1"], input: "not-the-finger\n" + Self.finger + "\n")
        #expect(unlock.status == 0, "\(unlock)")
        #expect(try Self.status(world, "term-1") == (state: "active", locked: false))
    }

    @Test func sighupExits4AndTheSessionStaysLocked() throws {
        let world = try Self.launchedSession()
        let gate = try world.start(["-S", "gate", "--session", "term-1"])
        try gate.waitForError(containing: "Password:")
        gate.signal(SIGHUP)
        let result = try gate.wait(timeout: 10)
        #expect(result.status == 4, "\(result)")
        #expect(try Self.status(world, "term-1").locked)
        // The prompt claim went with it.
        #expect(try world.sqlite("SELECT prompt_pid IS NULL FROM sessions WHERE id = 'term-1'") == "1")
    }

    @Test func didEnterBackgroundEndsAWaitingScriptedGateWithAppCancel() throws {
        let world = try Self.launchedSession()
        let gate = try world.start(["-S", "gate", "--session", "term-1"])
        try gate.waitForError(containing: "Password:")
        try world.gateEvents(["did-enter-background"], session: "term-1")
        let result = try gate.wait(timeout: 10)
        #expect(result.status == 9, "\(result)")
        #expect(try Self.status(world, "term-1") == (state: "background", locked: true))
    }

    @Test func didEnterBackgroundEndsAWaitingAuthWithAppCancel() throws {
        let world = try Self.launchedSession()
        try world.gateEvents(["did-become-active", "will-resign-active"], session: "term-1")
        let auth = try world.start(["-S", "--json", "auth", "--session", "term-1"])
        try auth.waitForError(containing: "Password:")
        #expect(try world.sqlite("SELECT prompt_kind FROM sessions WHERE id = 'term-1'") == "auth")
        let event = try world.run(["--json", "event", "did-enter-background", "--session", "term-1"])
        #expect(event.status == 0, "\(event)")
        #expect(event.json?["state"] as? String == "background")
        let result = try auth.wait(timeout: 10)
        #expect(result.status == 9, "\(result)")
        #expect(result.json?["outcome"] as? String == "appCancel", "\(result)")
        // The cancelled evaluation did not unlock anything.
        #expect(try Self.status(world, "term-1") == (state: "background", locked: true))
        #expect(try world.sqlite("SELECT prompt_pid IS NULL FROM sessions WHERE id = 'term-1'") == "1")
    }

    @Test func aSecondGateWaitsForTheFirstInsteadOfPrompting() throws {
        let world = try Self.launchedSession()
        let first = try world.start(["-S", "gate", "--session", "term-1"])
        defer { first.signal(SIGKILL) }
        try first.waitForError(containing: "Password:")
        let second = try world.start(["-S", "gate", "--session", "term-1"])
        defer { second.signal(SIGKILL) }
        try second.waitForError(containing: "Another terminal is unlocking this session (process \(first.pid))")
        #expect(!second.errorsSoFar.contains("Password:"))
        #expect(try world.gateAuditCount(factor: "biometric", outcome: "pending") == 1)

        first.write(Self.finger + "\n")
        #expect(try first.wait(timeout: 10).status == 0)
        // The waiting gate sees the session unlocked and exits without ever asking.
        let result = try second.wait(timeout: 10)
        #expect(result.status == 0, "\(result)")
        #expect(!result.stderr.contains("Password:"), "\(result)")
        #expect(try Self.status(world, "term-1") == (state: "active", locked: false))
    }

    @Test func aDeadPromptOwnerIsCleanedUp() throws {
        let world = try Self.launchedSession()
        let gone = try RunningProcess(["/bin/true"], environment: [:])
        _ = try gone.wait()
        _ = try world.sqlite("UPDATE sessions SET prompt_pid = \(gone.pid), prompt_kind = 'gate' WHERE id = 'term-1'")
        let result = try world.run(["-S", "gate", "--session", "term-1"], input: Self.finger + "\n", timeout: 10)
        #expect(result.status == 0, "\(result)")
        #expect(!result.stderr.contains("Another terminal"), "\(result)")
        #expect(try Self.status(world, "term-1").locked == false)
    }

    // MARK: - An unreadable store

    @Test func aCorruptStoreStillNeedsThePasscode() throws {
        let world = try Self.launchedSession()
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: world.storePath + suffix) }
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: world.storePath))
        let biometric = world.calls("touchgate-biometric")

        // A wrong passcode, then the end of input: still closed.
        let wrong = try world.run(["-S", "gate", "--session", "term-1"], input: "not-the-passcode\n")
        #expect(wrong.status == 2, "\(wrong)")
        #expect(wrong.stderr.contains("store cannot be read"), "\(wrong)")
        #expect(world.calls("touchgate") >= 1)
        // Nothing at all: still closed (and even the fast-path-only form asks).
        #expect(try world.run(["-S", "gate", "--session", "term-1"], input: "").status == 2)
        #expect(try Self.runDetached(world, ["gate", "--session", "term-1"]).status == 11)

        let passcodeCalls = world.calls("touchgate")
        let right = try world.run(["-S", "gate", "--session", "term-1"], input: "not-the-passcode\n" + Self.passcode + "\n")
        #expect(right.status == 0, "\(right)")
        #expect(right.stderr.contains("store cannot be read"), "\(right)")
        #expect(world.calls("touchgate") == passcodeCalls + 2)
        // Only the passcode: the biometric factor needs the store.
        #expect(world.calls("touchgate-biometric") == biometric)
    }

    @Test func aCorruptStoreThrottlesWrongPasscodesInMemory() throws {
        let world = try Self.launchedSession()
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: world.storePath + suffix) }
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: world.storePath))
        let calls = world.calls("touchgate")
        let input = String(repeating: "not-the-passcode\n", count: 6) + Self.passcode + "\n"
        let result = try world.run(["-S", "gate", "--session", "term-1"], input: input)
        // Five wrong answers reach PAM; the sixth try is throttled (in -S mode that ends the gate with 1).
        #expect(result.status == 1, "\(result)")
        #expect(world.calls("touchgate") == calls + 5)
    }

    // MARK: - The lifecycle

    /// The events each state allows, as iOS's application lifecycle has them.
    static let allowed: [String: [String: String]] = [
        "notRunning": ["did-finish-launching": "inactive"],
        // A launch is valid in every state: it is a new process, and starts the session afresh.
        "inactive": ["did-become-active": "active", "did-enter-background": "background", "will-terminate": "notRunning",
                     "did-finish-launching": "inactive"],
        "active": ["will-resign-active": "inactive", "will-terminate": "notRunning", "did-finish-launching": "inactive"],
        "background": ["will-enter-foreground": "inactive", "will-terminate": "notRunning",
                       "did-finish-launching": "inactive"],
    ]
    static let events = ["did-finish-launching", "will-resign-active", "did-enter-background", "will-enter-foreground",
                         "did-become-active", "will-terminate"]
    /// Events that bring a new session to each state.
    static let path: [String: [String]] = [
        "notRunning": ["did-finish-launching", "will-terminate"],
        "inactive": ["did-finish-launching"],
        "active": ["did-finish-launching", "did-become-active"],
        "background": ["did-finish-launching", "did-enter-background"],
    ]

    @Test(arguments: ["notRunning", "inactive", "active", "background"])
    func everyInvalidTransitionExits65AndChangesNothing(state: String) throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        try world.gateEvents(Self.path[state]!, session: "s-\(state)")
        let before = try world.gateSessionRow("s-\(state)")
        #expect(try Self.status(world, "s-\(state)").state == state)
        let invalid = Self.events.filter { Self.allowed[state]![$0] == nil }
        #expect(invalid.count == 6 - Self.allowed[state]!.count)
        for event in invalid {
            let result = try world.run(["event", event, "--session", "s-\(state)"])
            #expect(result.status == 65, "\(event) in \(state): \(result)")
            #expect(result.stderr.contains("event \(event) is not valid in state \(state)"), "\(result)")
            #expect(try world.gateSessionRow("s-\(state)") == before, "\(event) in \(state) changed the session")
        }
        // The allowed ones lead where iOS goes.
        for (event, destination) in Self.allowed[state]! {
            let id = "s-\(state)-\(event)"
            try world.gateEvents(Self.path[state]!, session: id)
            let result = try world.run(["--json", "event", event, "--session", id])
            #expect(result.status == 0, "\(event) in \(state): \(result)")
            #expect(result.json?["state"] as? String == destination, "\(result)")
        }
    }

    @Test func anEventOnASessionNeverSeenMustBeALaunch() throws {
        let world = try TestEnvironment()
        for event in Self.events where event != "did-finish-launching" {
            let result = try world.run(["event", event, "--session", "new"])
            #expect(result.status == 65, "\(result)")
            #expect(result.stderr.contains("not valid in state notRunning"), "\(result)")
        }
        #expect(try world.gateSessionRow("new") == "")
    }

    @Test func noEventUnlocksALockedSession() throws {
        let world = try Self.launchedSession(configure: [("grace-seconds", "60")])
        let cycle = ["did-become-active", "will-resign-active", "did-enter-background", "will-enter-foreground",
                     "did-become-active", "will-resign-active", "will-terminate", "did-finish-launching",
                     "did-enter-background", "will-terminate"]
        for event in cycle {
            try world.gateEvents([event], session: "term-1")
            #expect(try Self.status(world, "term-1").locked, "unlocked by \(event)")
            #expect(try world.sqlite("SELECT locked FROM sessions WHERE id = 'term-1'") == "1", "unlocked by \(event)")
        }
    }

    @Test func theGracePeriodDecidesOnReturn() throws {
        let world = try Self.launchedSession(configure: [("grace-seconds", "60")])
        #expect(try world.run(["-S", "gate", "--session", "term-1"], input: Self.finger + "\n").status == 0)
        // Back within the grace period: no unlock needed.
        try world.gateEvents(["will-resign-active", "did-enter-background", "will-enter-foreground", "did-become-active"],
                             session: "term-1")
        #expect(try Self.status(world, "term-1") == (state: "active", locked: false))
        // Locked on return once the grace is shorter than the trip: here 0, a shorter grace needs no
        // authentication. (A trip that outlasts the grace, by the clock, is LifecycleEventsTests', which
        // set the clock rather than sleep through the grace.)
        #expect(try world.run(["config", "set", "grace-seconds", "0"]).status == 0)
        try world.gateEvents(["will-resign-active", "did-enter-background", "will-enter-foreground"], session: "term-1")
        #expect(try Self.status(world, "term-1") == (state: "inactive", locked: true))
        #expect(try world.run(["-S", "gate", "--session", "term-1"], input: Self.finger + "\n").status == 0)
        #expect(try Self.status(world, "term-1") == (state: "active", locked: false))
    }

    @Test func statusListsEverySessionWithItsStateAndLock() throws {
        let world = try Self.launchedSession()
        try world.gateEvents(["did-finish-launching", "did-become-active"], session: "term-2")
        #expect(try world.run(["-S", "gate", "--session", "term-2"], input: Self.finger + "\n").status == 0)
        let result = try world.run(["--json", "status"])
        let sessions = try #require(result.json?["sessions"] as? [[String: Any]], "\(result)")
        #expect(sessions.count == 2)
        for session in sessions { #expect(Set(session.keys) == ["id", "state", "locked"], "\(session)") }
        #expect(sessions.first?["id"] as? String == "term-1")
        #expect(sessions.first?["state"] as? String == "inactive")
        #expect(sessions.first?["locked"] as? Bool == true)
        #expect(sessions.last?["id"] as? String == "term-2")
        #expect(sessions.last?["state"] as? String == "active")
        #expect(sessions.last?["locked"] as? Bool == false)
    }

    // MARK: - Shell integration

    @Test(arguments: ["bash", "zsh"])
    func shellInitIsValidShellAndCleanUnderShellcheck(shell: String) throws {
        let world = try TestEnvironment()
        let snippet = try world.run(["shell-init", shell])
        #expect(snippet.status == 0, "\(snippet)")
        let path = world.directory.appendingPathComponent("init.\(shell)").path
        try snippet.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        let check = try TestEnvironment.execute("/bin/\(shell)", ["-n", path], environment: world.environment)
        #expect(check.status == 0 && check.stderr.isEmpty, "\(check)")
        // What it prints is clean under shellcheck (as bash: shellcheck reads no zsh; the code is the same).
        let lint = try TestEnvironment.execute("/usr/bin/shellcheck", ["-s", "bash", path], environment: world.environment)
        #expect(lint.status == 0, "\(lint)")
        #expect(snippet.stdout.contains("shell -- \"$__touchgate_shell\" -i"))
        #expect(snippet.stdout.contains("trap '' INT QUIT"))
        // No hook that claims to gate a prompt is left.
        for hook in ["PROMPT_COMMAND", "precmd", "preexec", "DEBUG", " gate"] {
            #expect(!snippet.stdout.contains(hook), "\(hook)")
        }
    }

    /// Not interactive, or inside tmux (whose client lock is the lock), the snippet leaves the
    /// shell as it is: no owner starts, no session is launched, and the shell goes on.
    @Test(arguments: ["bash", "zsh"])
    func theSnippetLeavesAShellWithoutATerminalOrInsideTmuxAlone(shell: String) throws {
        let world = try TestEnvironment()
        let script = "eval \"$('\(TestEnvironment.binary)' shell-init \(shell))\"; echo STILL-THE-SHELL; true"
        let plain = try TestEnvironment.execute("/bin/\(shell)", ["-c", script], environment: world.environment)
        #expect(plain.status == 0 && plain.stdout.contains("STILL-THE-SHELL"), "\(plain)")
        world.extraEnvironment["TMUX"] = "/tmp/none/default,4242,7"
        let interactive = try TestEnvironment.execute("/bin/\(shell)", ["-i", "-c", script], environment: world.environment)
        #expect(interactive.stdout.contains("STILL-THE-SHELL"), "\(interactive)")
        #expect(try world.sqlite("SELECT count(*) FROM sessions") == "0")
        #expect(try world.sqlite("SELECT count(*) FROM shell_owners") == "0")
    }

    @Test func theTmuxHooksMapToLifecycleEvents() throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        world.extraEnvironment["TMUX"] = "/tmp/none/default,4242,0"
        func hook(_ arguments: String...) throws {
            let result = try world.run(["tmux-hook"] + arguments)
            #expect(result.status == 0, "\(arguments): \(result)")
        }
        try hook("session-created", "", "$1")
        #expect(try Self.status(world, "tmux-4242-$1") == (state: "active", locked: true))
        try hook("session-created", "", "$2")
        try hook("client-focus-out", "/dev/pts/7", "$1")
        #expect(try Self.status(world, "tmux-4242-$1").state == "inactive")
        try hook("client-focus-in", "/dev/pts/7", "$1")
        #expect(try Self.status(world, "tmux-4242-$1").state == "active")
        // A client gets $1, then switches to $2: $1 goes to the background, $2 is returning.
        try hook("client-session-changed", "/dev/pts/7", "$1")
        #expect(try Self.status(world, "tmux-4242-$1").state == "active")
        try hook("client-session-changed", "/dev/pts/7", "$2")
        #expect(try Self.status(world, "tmux-4242-$1") == (state: "background", locked: true))
        // $2 was active (never left): will-enter-foreground is skipped, not forced.
        #expect(try Self.status(world, "tmux-4242-$2").state == "active")
        // The detach hook only knows the client: the store maps it to $2.
        try hook("client-detached", "/dev/pts/7")
        #expect(try Self.status(world, "tmux-4242-$2") == (state: "background", locked: true))
        #expect(try world.sqlite("SELECT count(*) FROM tmux_clients") == "0")
        // A detach of a client never seen changes nothing.
        try hook("client-detached", "/dev/pts/8")
        // No hook ever unlocks.
        try hook("client-session-changed", "/dev/pts/7", "$2")
        #expect(try Self.status(world, "tmux-4242-$2") == (state: "inactive", locked: true))
    }
}
