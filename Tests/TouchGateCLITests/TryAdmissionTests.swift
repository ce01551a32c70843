import Foundation
import Testing
import TouchGate

/// When a passcode try counts (issue 27, item 3): when its answer is submitted, not when a prompt
/// opens. Through the real binary at pseudo-terminals of its own, real libpam (the pam_matrix
/// stacks of `pam/test`) and real SQLite files: prompts left open, or killed before Enter, count
/// nothing; a process killed between Enter and PAM's answer leaves its try counted. (A second
/// prompt of the same stack, asked live within the one try: TerminalSafetyTests.)
@Suite struct TryAdmissionTests {
    /// `touchgate auth` for alice at a terminal of its own (the world's store and stacks).
    static func auth(_ world: TestEnvironment) throws -> PseudoTerminal {
        var environment = world.environment
        environment["TERM"] = "xterm"
        return try PseudoTerminal([TestEnvironment.binary, "auth"], environment: environment)
    }

    static func failures(_ world: TestEnvironment) throws -> Int {
        try #require(try world.statusJSON()["passcodeFailures"] as? Int)
    }

    static func pending(_ world: TestEnvironment) throws -> Int {
        Int(try world.sqlite("SELECT count(*) FROM audit WHERE factor = 'passcode' AND outcome = 'pending'")) ?? -1
    }

    static func killed(_ terminal: PseudoTerminal) throws -> Int32 {
        kill(terminal.pid, SIGKILL)
        return try terminal.wait()
    }

    /// Five covers at the gate's `Password:` with nothing typed (tmux's idle lock over five
    /// terminals, or five `touchgate shell` owners): nothing is counted, a sixth try from another
    /// process is not throttled, no cover says "attempts left", and killing the gates at their
    /// prompt counts nothing either.
    @Test func openPromptsCountNothing() throws {
        let world = try TestEnvironment()
        try world.setConfig("passcode-delays", "0,0,0,0,60")
        let enable = try world.run(["-S", "enable"], input: "alice-passcode\n")
        #expect(enable.status == 0, "\(enable)")
        var environment = world.environment
        environment["TERM"] = "xterm"
        let owners = try (0..<5).map { _ in
            try PseudoTerminal([TestEnvironment.binary, "shell", "--", "/bin/sh"], environment: environment)
        }
        for owner in owners { try owner.waitFor("Password:", timeout: 60) }
        let calls = world.calls("touchgate")
        #expect(try Self.failures(world) == 0)
        for owner in owners {
            #expect(!owner.screen.contains("attempts left"), "a cover counts an open prompt: \(owner.screen.debugDescription)")
        }

        // The gates die at their prompt: nothing was admitted, so nothing is left pending.
        for owner in owners {
            for gate in PseudoTerminal.children(of: owner.pid) { kill(gate, SIGKILL) }
        }
        #expect(try Self.failures(world) == 0)
        #expect(try Self.pending(world) == 0)

        let sixth = try world.run(["-S", "--json", "auth"], input: "alice-passcode\n")
        CoreExpect.outcome(sixth, "success", policy: "device-owner")
        #expect(world.calls("touchgate") == calls + 1)
        for owner in owners { _ = try Self.killed(owner) }
    }

    /// `auth` at its prompt, killed before Enter: nothing counted. Killed between Enter and PAM's
    /// answer (the stack holds the call): the try counts, pending, as before the change.
    @Test func aKillBeforeEnterCountsNothingAndAfterEnterCountsOne() throws {
        let world = try TestEnvironment()
        // The held stack checks against the finger database: its "passcode" is alice-finger.
        try world.setConfig("passcode-service", "touchgate-gated")
        try world.holdCalls("touchgate-gated")
        let calls = world.calls("touchgate-gated")

        let idle = try Self.auth(world)
        try idle.waitFor("Password:")
        #expect(try Self.killed(idle) == 128 + SIGKILL)
        #expect(try Self.failures(world) == 0)
        #expect(try Self.pending(world) == 0)
        #expect(world.calls("touchgate-gated") == calls)

        let typed = try Self.auth(world)
        try typed.waitFor("Password:")
        #expect(try Self.failures(world) == 0, "an open prompt is counted")
        typed.type("alice-finger\r")
        try waitUntil("the try to reach PAM") { world.calls("touchgate-gated") == calls + 1 }
        #expect(try Self.killed(typed) == 128 + SIGKILL)
        #expect(try Self.failures(world) == 1)
        #expect(try Self.pending(world) == 1)
        try world.release("touchgate-gated")
    }

    /// The PAM module (its helper runs the same evaluation through the host's conversation), with
    /// the real pam_unix stack in a namespace: five `su` left at their `Password:` count nothing,
    /// killed there they leave nothing pending, and a sixth `su` with the right password is not
    /// throttled.
    @Test func suPromptsLeftOpenCountNothingInTheLedger() throws {
        let host = try PAMHost()
        try host.host("su")
        let open = try (0..<5).map { _ in try host.terminal(PAMHost.asUser(["su", "-c", "true", PAMHost.target])) }
        for su in open { try su.waitFor("Password:") }
        let counted = "SELECT coalesce(sum(passcode_failures), 0) || ' ' || (SELECT count(*) FROM audit WHERE outcome = 'pending') FROM users"
        #expect(try host.ledger(counted) == "0 0")
        #expect(host.calls("passcode").isEmpty, "an open prompt reached PAM: \(host.calls("passcode"))")
        for su in open { _ = try Self.killed(su) }
        #expect(try host.ledger(counted) == "0 0")

        let sixth = try host.terminal(PAMHost.asUser(["su", "-c", "id -un", PAMHost.target]))
        try sixth.waitFor("Password:")
        sixth.type(PAMHost.targetPassword + "\r")
        #expect(try sixth.wait() == 0, "\(sixth.screen.debugDescription)")
        #expect(host.calls("passcode").count == 1, "\(host.calls("passcode"))")
        #expect(try host.ledger(counted) == "0 0")
    }

    /// `touchgate shell` for alice at a terminal of its own, its session asked for at once (the
    /// lock is on).
    static func owner(_ world: TestEnvironment) throws -> PseudoTerminal {
        var environment = world.environment
        environment["TERM"] = "xterm"
        return try PseudoTerminal([TestEnvironment.binary, "shell", "--", "/bin/sh"], environment: environment)
    }

    /// Waits for the unlock (the cover gone: what was typed at the gate is discarded then), then
    /// for the shell to answer a command.
    static func shellShown(_ owner: PseudoTerminal) throws {
        try owner.waitFor("\u{1B}[?1049l", timeout: 30)
        owner.type("echo SHELL-$((40 + 2))\r")
        try owner.waitFor("SHELL-42", timeout: 30)
    }

    /// Waits until `text` shows `count` times on `terminal`'s screen (everything it wrote so far).
    static func waitFor(_ text: String, times count: Int, on terminal: PseudoTerminal, timeout: TimeInterval = 20) throws {
        try waitUntil("'\(text)' \(count) times on the screen", timeout: timeout) {
            terminal.pump()
            return terminal.screen.components(separatedBy: text).count - 1 >= count
        }
    }

    /// A cover counting down a long wait (300 s) ends as soon as another process resets the count
    /// (`touchgate reset`, run by root): the wait is over and the passcode is asked again.
    @Test func aCountdownEndsWhenAnotherProcessResetsTheCount() throws {
        let world = try TestEnvironment()
        try world.setConfig("passcode-delays", "0,300")
        let enable = try world.run(["-S", "enable"], input: "alice-passcode\n")
        #expect(enable.status == 0, "\(enable)")
        let owner = try Self.owner(world)
        try owner.waitFor("Password:", timeout: 60)
        owner.type("not-the-passcode\r")
        try owner.waitFor("next try in", timeout: 30)
        #expect(try Self.failures(world) == 1)
        let reset = try world.run(["reset"])
        #expect(reset.status == 0, "\(reset)")
        // Not the 300 s: the countdown reads the store every second.
        try owner.waitFor("The wait is over", timeout: 20)
        try Self.waitFor("Password:", times: 2, on: owner)
        owner.type("alice-passcode\r")
        try Self.shellShown(owner)
        _ = try Self.killed(owner)
    }

    /// `config set idle-seconds` from another process reaches an owner that is already running:
    /// its shown session locks once idle that long, without a key or a restart. (An owner also
    /// reads the setting when anything asks it to look at its session: a watcher of another test
    /// that locks every owner of the user does, so this cannot tell the two apart on a busy host.)
    @Test func idleSecondsSetElsewhereReachARunningOwner() throws {
        let world = try TestEnvironment()
        let enable = try world.run(["-S", "enable"], input: "alice-passcode\n")
        #expect(enable.status == 0, "\(enable)")
        let owner = try Self.owner(world)
        try owner.waitFor("Password:", timeout: 60)
        owner.type("alice-passcode\r")
        try Self.shellShown(owner)
        // Off (0) when the owner started: only a setting read again can lock it now.
        let set = try world.run(["config", "set", "idle-seconds", "1"])
        #expect(set.status == 0, "\(set)")
        try Self.waitFor("this session is locked", times: 2, on: owner, timeout: 30)
        _ = try Self.killed(owner)
    }
}

/// Polls `condition` until it holds, or fails after `timeout` (for synchronous tests).
private func waitUntil(_ what: String, timeout: TimeInterval = 30, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while try !condition() {
        guard Date() < deadline else { throw TestFailure("\(what) never happened") }
        Thread.sleep(forTimeInterval: 0.02)
    }
}
