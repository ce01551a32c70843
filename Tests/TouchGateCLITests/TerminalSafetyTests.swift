import Foundation
import TestSupport
import Testing

/// What reaches a terminal, what a secret counts, what a crash could leak, and what a missing
/// stack says: through the real binary, real PAM (the `touchgate-hostile` and `touchgate-twice`
/// test stacks) and a real store.
@Suite(.serialized) struct TerminalSafetyTests {
    static let passcode = "alice-passcode"

    /// The bytes a terminal acts on: ESC, BEL, and C1 controls in UTF-8 (U+0080–U+009F).
    static func controlBytes(in text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        var found = bytes.filter { $0 < 0x20 && $0 != 0x0A || $0 == 0x7F }
        for index in bytes.indices.dropLast() where bytes[index] == 0xC2 && (0x80...0x9F).contains(bytes[index + 1]) {
            found.append(bytes[index + 1])
        }
        return found
    }

    // MARK: - Item 12: nothing untrusted reaches a terminal raw

    /// A module's `ESC[?1049l`, `ESC]0;…BEL`, a UTF-8 C1 CSI and invalid UTF-8, and a `--reason`
    /// with escapes: all shown escaped on standard error, none of it raw.
    @Test func moduleMessagesAndTheReasonReachStandardErrorEscaped() throws {
        let world = try TestEnvironment()
        try world.setConfig("passcode-service", "touchgate-hostile")
        let result = try world.runRaw(["-S", "auth", "--reason", "reason\u{1B}]0;reason-title\u{07}\u{9B}2J"],
                                      input: Data((Self.passcode + "\n").utf8))
        #expect(result.status == 0, "\(result)")
        #expect(world.calls("touchgate-hostile") == 1)
        #expect(result.stderr.contains("HOSTILE-MESSAGE"), "\(result)")
        #expect(result.stderr.contains("\\u{1b}[?1049l\\u{1b}]0;hostile-title\\u{7}\\u{9b}2JHOSTILE-MESSAGE\u{FFFD}"),
                "\(result)")
        #expect(result.stderr.contains("reason\\u{1b}]0;reason-title\\u{7}\\u{9b}2J"), "\(result)")
        #expect(Self.controlBytes(in: result.stderr).isEmpty, "raw control bytes on stderr: \(result.stderr.debugDescription)")
    }

    /// On the gate's cover in a real terminal: the module's escapes do not lift the cover (the
    /// pane stays on the alternate screen, the session behind never shows) nor set the title.
    @Test func moduleMessagesCannotLiftTheGatesCover() async throws {
        // Made on a thread of its own: each step runs a process.
        let (world, enable) = try await onAThreadOfItsOwn { () throws -> (TestEnvironment, RunResult) in
            let world = try TestEnvironment()
            try world.setConfig("passcode-service", "touchgate-hostile")
            return (world, try world.run(["-S", "enable"], input: Self.passcode + "\n"))
        }
        #expect(enable.status == 0, "\(enable)")
        try await onAThreadOfItsOwn { try world.gateEvents(["did-finish-launching"], session: "term-1") }
        let pane = try await PaneTerminal(world: world, command: """
            printf 'MARKER-BEHIND-THE-GATE\\n'; '\(TestEnvironment.binary)' gate --session term-1; echo "GATE-EXIT=$?"; sleep 600
            """)
        defer { pane.shutdown() }
        _ = try await pane.waitForScreen(containing: "Password:")
        try await pane.waitUntilPrompting(try await pane.touchgatePID())
        // The stack runs once the passcode is submitted at touchgate's own prompt: its message is
        // looked at while the stack is held.
        try world.holdCalls("touchgate-hostile")
        try await pane.typeLine(Self.passcode)
        let screen = try await pane.waitForScreen(containing: "HOSTILE-MESSAGE")
        #expect(screen.contains("HOSTILE-MESSAGE") && screen.contains("this session is locked"), "\(screen)")
        #expect(!screen.contains("MARKER-BEHIND-THE-GATE"), "the cover was lifted:\n\(screen)")
        #expect(try await pane.variable("alternate_on") == "1", "the pane left the alternate screen")
        #expect(try await pane.variable("pane_title") != "hostile-title", "the module set the window title")
        try world.release("touchgate-hostile")
        try await pane.waitForScreen(containing: "GATE-EXIT=0")
    }

    /// Session ids with control characters, C1 controls, or over 256 bytes are refused where they
    /// enter (exit 65), from `--session` and from `TOUCHGATE_SESSION`, and nothing is stored.
    @Test func unprintableSessionIdsAreRefused() throws {
        let world = try TestEnvironment()
        let bad = ["esc\u{1B}[?1049l", "csi\u{9B}2J", "bell\u{07}", "rtl\u{202E}txt", String(repeating: "s", count: 257)]
        for id in bad {
            for arguments in [["event", "did-finish-launching", "--session", id], ["gate", "--session", id],
                              ["-S", "auth", "--session", id]] {
                let result = try world.runRaw(arguments, input: Data((Self.passcode + "\n").utf8))
                #expect(result.status == 65, "\(arguments.debugDescription): \(result)")
                #expect(result.stderr.contains("invalid session id"), "\(result)")
                #expect(Self.controlBytes(in: result.stderr).isEmpty, "\(result.stderr.debugDescription)")
            }
            let fromEnvironment = try world.runRaw(["-S", "auth"], input: Data((Self.passcode + "\n").utf8),
                                                   environment: ["TOUCHGATE_SESSION": id])
            #expect(fromEnvironment.status == 65, "\(id.debugDescription): \(fromEnvironment)")
        }
        #expect(try world.sqlite("SELECT count(*) FROM sessions") == "0")
        #expect(try world.sqlite("SELECT count(*) FROM audit WHERE session IS NOT NULL") == "0")
        #expect(world.calls("touchgate") == 0)
    }

    /// A user name with a C1 control is refused like one with a C0 control.
    @Test func unprintableUserNamesAreRefused() throws {
        let world = try TestEnvironment()
        let result = try world.runRaw(["--user", "al\u{9B}2Jice", "status"])
        #expect(result.status == 65, "\(result)")
        #expect(Self.controlBytes(in: result.stderr).isEmpty, "\(result.stderr.debugDescription)")
    }

    // MARK: - Item 14: a secret that reached PAM stays counted

    /// The stack prompts twice (pam_exec `expose_authtok`, then pam_matrix): an answer to the
    /// first, then end of input at the second, is a counted failure (outcome userCancel).
    @Test func aSecretThatReachedPAMStaysCountedWhenInputEndsAtALaterPrompt() throws {
        let world = try TestEnvironment()
        try world.setConfig("passcode-service", "touchgate-twice")
        let result = try world.run(["-S", "--json", "auth"], input: Self.passcode + "\n")
        CoreExpect.outcome(result, "userCancel", policy: "device-owner")
        #expect(result.stderr.components(separatedBy: "Password:").count == 3, "two prompts: \(result)")
        #expect(try world.statusJSON()["passcodeFailures"] as? Int == 1)
        #expect(try world.sqlite("SELECT outcome FROM audit WHERE factor = 'passcode'") == "userCancel")
        // End of input at the first prompt (touchgate's own): no try was made, PAM is not even
        // started, nothing is counted.
        let nothing = try world.run(["-S", "--json", "auth"], input: "")
        CoreExpect.outcome(nothing, "userCancel", policy: "device-owner")
        #expect(try world.statusJSON()["passcodeFailures"] as? Int == 1)
        #expect(world.calls("touchgate-twice") == 1)
        // Both answers: the first at touchgate's own prompt, the second asked live by the stack
        // within the same admitted try; the stack decides.
        let both = try world.run(["-S", "--json", "auth"], input: Self.passcode + "\n" + Self.passcode + "\n")
        CoreExpect.outcome(both, "success", policy: "device-owner")
        #expect(both.stderr.components(separatedBy: "Password:").count == 3, "two prompts: \(both)")
        #expect(world.calls("touchgate-twice") == 2)
        #expect(try world.sqlite("SELECT count(*) FROM audit WHERE factor = 'passcode' AND outcome = 'success'") == "1")
    }

    // MARK: - Item 15: no core file, not dumpable

    /// While `auth` (run as nobody) waits at a prompt, its core size limit is 0 and it is not
    /// dumpable. The sign checked: the kernel makes the /proc/PID files of a non-dumpable process
    /// belong to root instead of the process's user (a root test process could read them either way).
    @Test func aPromptingProcessIsNotDumpableAndHasNoCoreLimit() throws {
        guard getuid() == 0 else {
            Issue.record("this test switches to nobody with setpriv and needs root")
            return
        }
        let world = try TestEnvironment()
        let directory = world.directory.appendingPathComponent("nobody-state").path
        world.storePath = directory + "/touchgate.sqlite"
        #expect(try world.run(["status"]).status == 0)
        try world.handStoreToNobody()
        let auth = try RunningProcess(TestEnvironment.asNobody + ["-S", "auth"], environment: world.environment)
        defer { auth.signal(SIGKILL) }
        try auth.waitForError(containing: "Password:")
        let limits = try String(contentsOfFile: "/proc/\(auth.pid)/limits", encoding: .utf8)
        let core = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }
        #expect(core.map { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2) == ["0", "0"] }
                == true, "\(String(describing: core))")
        var information = stat()
        #expect(stat("/proc/\(auth.pid)/status", &information) == 0)
        let status = try String(contentsOfFile: "/proc/\(auth.pid)/status", encoding: .utf8)
        #expect(status.contains("Uid:\t65534"), "not running as nobody: \(status)")
        #expect(information.st_uid == 0, "/proc/\(auth.pid) belongs to uid \(information.st_uid): the process is dumpable")
        auth.write(Self.passcode + "\n")
        auth.closeInput()
        #expect(try auth.wait(timeout: 20).status == 0)
    }

    // MARK: - Item 17: a missing stack is named

    /// A missing passcode service file, or a missing `--pam-confdir`, is named on standard error.
    @Test func aMissingServiceFileOrDirectoryIsNamed() throws {
        let world = try TestEnvironment()
        try world.setConfig("passcode-service", "touchgate-missing")
        let missingFile = try world.run(["-S", "auth"], input: Self.passcode + "\n")
        #expect(missingFile.status == 5, "\(missingFile)")
        let path = world.pamDirectory.appendingPathComponent("touchgate-missing").path
        #expect(missingFile.stderr.contains("passcode service file \(path) was not found"), "\(missingFile)")
        #expect(missingFile.stderrLines.count == 1, "\(missingFile)")

        try world.setConfig("passcode-service", "touchgate")
        let missingDirectory = try world.run(["-S", "--pam-confdir", "/nonexistent-touchgate-pam", "auth"],
                                             input: Self.passcode + "\n")
        #expect(missingDirectory.status == 5, "\(missingDirectory)")
        #expect(missingDirectory.stderr.contains("PAM configuration directory /nonexistent-touchgate-pam was not found"),
                "\(missingDirectory)")
    }

    /// On the gate's cover: the missing file is named, and the gate waits for Enter instead of
    /// retrying silently; Enter looks again.
    @Test func theGateNamesAMissingServiceFileAndWaitsForEnter() async throws {
        // Made on a thread of its own: each step runs a process.
        let (world, enable) = try await onAThreadOfItsOwn { () throws -> (TestEnvironment, RunResult) in
            let world = try TestEnvironment()
            return (world, try world.run(["-S", "enable"], input: Self.passcode + "\n"))
        }
        #expect(enable.status == 0, "\(enable)")
        let set = try await onAThreadOfItsOwn { () throws -> RunResult in
            try world.gateEvents(["did-finish-launching"], session: "term-1")
            // Weakening needs the passcode while the lock is on.
            return try world.run(["-S", "config", "set", "passcode-service", "touchgate-missing"], input: Self.passcode + "\n")
        }
        #expect(set.status == 0, "\(set)")
        let pane = try await PaneTerminal(world: world, command: """
            '\(TestEnvironment.binary)' gate --session term-1; echo "GATE-EXIT=$?"; sleep 600
            """)
        defer { pane.shutdown() }
        let path = world.pamDirectory.appendingPathComponent("touchgate-missing").path
        let screen = try await pane.waitForScreen(containing: "Press Enter to try again.")
        #expect(screen.contains("passcode service file \(path) was not found"), "\(screen)")
        let gate = try await pane.touchgatePID()
        try await pane.waitUntilPrompting(gate)
        let looks = try await TerminalKeysTests.count(world, "passcode", "passcodeNotSet")
        #expect(looks == 1)
        try await pane.type("Enter")
        try await eventually("Enter to look again") { try await TerminalKeysTests.count(world, "passcode", "passcodeNotSet") == 2 }
        try await pane.waitUntilPrompting(gate)
        #expect(try await pane.screen().contains("Press Enter to try again."))
        #expect(try await TerminalKeysTests.locked(world) == true)
    }

    /// Text read back from the store (`log`, `config get`) is printed through the sanitizer too:
    /// a row planted with escapes (by anything that can write the file) shows them escaped, and
    /// its JSON escapes C0, DEL and C1 alike.
    @Test func storedTextIsPrintedEscaped() throws {
        let world = try TestEnvironment()
        #expect(try world.run(["status"]).status == 0)
        try world.sqliteScript("""
            INSERT INTO audit (time, user, session, policy, factor, outcome, code)
            VALUES (0, 'alice', 'planted' || char(27) || '[2J' || char(127) || char(155), 'auth', 'passcode', 'success', 0);
            """)
        let text = try world.run(["log"])
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.contains("planted\\u{1b}[2J\\u{7f}\\u{9b}"), "\(text)")
        #expect(Self.controlBytes(in: text.stdout).isEmpty, "raw control bytes: \(text.stdout.debugDescription)")
        let json = try world.run(["--json", "log"])
        #expect(json.status == 0, "\(json)")
        #expect(json.stdout.contains(#"planted\u001b[2J\u007f\u009b"#), "\(json)")
        #expect(Self.controlBytes(in: json.stdout).isEmpty, "raw control bytes: \(json.stdout.debugDescription)")
    }

    // MARK: - Item 18: one line when throttled

    @Test func throttledAuthSaysItOnce() throws {
        let world = try TestEnvironment()
        try world.setConfig("passcode-delays", "0,60")
        // One wrong passcode, then the second try of the evaluation is already throttled.
        #expect(try world.run(["-S", "auth"], input: "not-the-passcode\n").status == 1)
        let throttled = try world.run(["-S", "auth"], input: Self.passcode + "\n")
        #expect(throttled.status == 1, "\(throttled)")
        #expect(throttled.stderrLines.count == 1, "\(throttled)")
        #expect(throttled.stderr.contains("Try again in"), "\(throttled)")
    }
}
