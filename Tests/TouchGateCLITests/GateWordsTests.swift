import Foundation
import Testing

/// What the gate says (issue 22, items 6 and 9), through the real binary in a real tmux server,
/// against the pam_matrix stacks of `pam/test` and a real store: each wrong passcode and what is
/// left, the cover drawn again after each try, a countdown that ends with an open prompt, and
/// the session named as the user knows it.
@Suite struct GateWordsTests {
    /// The lock on (passcode only: nothing enrolled), a wait of 2 s after the 2nd wrong passcode,
    /// and an inner tmux session `s` locked since its launch.
    static func lockedPasscodeSession() throws -> (TestEnvironment, TmuxHarness) {
        let world = try TestEnvironment()
        try world.setConfig("passcode-delays", "0,0,2")
        let enable = try world.run(["-S", "enable"], input: TmuxGateTests.passcode + "\n")
        guard enable.status == 0 else { throw TestFailure("enable failed: \(enable)") }
        let tmux = try TmuxHarness(world: world)
        try tmux.startInnerSession("s", command: "printf '\(TmuxGateTests.marker)\\n'; exec /bin/sh")
        return (world, tmux)
    }

    @Test func eachWrongPasscodeSaysWhatIsLeftAndTheCountdownEndsWithAnOpenPrompt() throws {
        let (world, tmux) = try Self.lockedPasscodeSession()
        defer { tmux.shutdown() }
        try tmux.attach("s")
        var screen = try TmuxGateTests.waitForGate(tmux)
        // The session as the user knows it, not tmux-<pid>-$<n>.
        #expect(screen.contains("session: tmux session \"s\""), "\(screen)")
        #expect(!screen.contains("tmux-"), "\(screen)")

        try tmux.typeLine("wrong-1")
        screen = try tmux.waitForScreen(containing: "Wrong passcode; 1 try left before a wait of 2 s.")
        // The cover was drawn again with the store's count.
        #expect(screen.contains("Passcode attempts left before a wait of 2 s: 1 try."), "\(screen)")
        try gateEventually("the next prompt") { try tmux.screen().contains("Password:") }

        try tmux.typeLine("wrong-2")
        try tmux.waitForScreen(containing: "Too many wrong passcodes: next try in")
        screen = try tmux.waitForScreen(containing: "The wait is over: type the passcode.")
        try gateEventually("the prompt after the wait") { try tmux.screen().contains("Password:") }
        screen = try tmux.screen()
        // Above the open prompt: no failure with a delay that is over.
        #expect(!screen.contains("Try again in"), "\(screen)")
        #expect(!screen.contains("next try in"), "\(screen)")
        #expect(try world.gateAuditCount(factor: "passcode", outcome: "authenticationFailed") == 2)

        try tmux.typeLine(TmuxGateTests.passcode)
        try tmux.waitForScreen(containing: TmuxGateTests.marker)
    }

    /// A shell's gate names its terminal.
    @Test func aShellsCoverNamesItsTerminal() throws {
        let (_, tmux) = try Self.lockedPasscodeSession()
        defer { tmux.shutdown() }
        try tmux.attach("s")
        try TmuxGateTests.waitForGate(tmux)
        // A second outer pane runs a shell session's gate on a terminal of its own.
        try tmux.outer("new-session", "-d", "-s", "g", "-x", "100", "-y", "30",
                       "\(TestEnvironment.binary) gate --session shell-4242-words; sleep 600")
        let terminal = try tmux.outer("display-message", "-p", "-t", "g", "#{pane_tty}").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let screen = try tmux.waitForScreen(containing: "Password:", pane: "g")
        #expect(screen.contains("session: the shell on \(terminal)"), "\(screen)")
        #expect(!screen.contains("shell-4242"), "\(screen)")
    }

    /// `-S auth`: each wrong line is said with what is left, and the outcome says why, in text and
    /// in JSON (`message`, `attemptsLeft`, `passcodeDelaySeconds`).
    @Test func scriptedAuthSaysEachWrongTryAndWhy() throws {
        let world = try TestEnvironment()
        let result = try world.run(["-S", "--json", "auth"], input: "wrong-1\nwrong-2\nwrong-3\n")
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("touchgate: Wrong passcode; 4 tries left before a wait of 60 s."), "\(result)")
        #expect(result.stderr.contains("touchgate: Wrong passcode; 2 tries left before a wait of 60 s."), "\(result)")
        let json = try #require(result.json)
        #expect(json["message"] as? String == "Authentication failed: the passcode was wrong 3 times.", "\(result)")
        #expect((json["attemptsLeft"] as? [String: Any])?["passcode"] as? Int == 2, "\(result)")
        #expect(json["passcodeDelaySeconds"] as? Int == 60, "\(result)")

        // One wrong line, then the input ends: said, not only exit 2.
        let short = try world.run(["-S", "auth"], input: "wrong-4\n")
        #expect(short.status == 2, "\(short)")
        #expect(short.stderr.contains("Wrong passcode; 1 try left before a wait of 60 s."), "\(short)")
        #expect(short.stderr.contains("The input ended before an answer (end of input). (userCancel)"), "\(short)")

        let status = try world.run(["--json", "status"])
        #expect((status.json?["attemptsLeft"] as? [String: Any])?["passcode"] as? Int == 1, "\(status)")
        #expect(status.json?["passcodeDelaySeconds"] as? Int == 60, "\(status)")
    }

    /// A --pam-confdir that is missing, runs through a file, or (for a user other than root,
    /// whom permissions do not stop) cannot be read is said as such, in text and in `message`.
    @Test func aPAMDirectoryThatCannotBeUsedIsToldApart() throws {
        let world = try TestEnvironment()
        let file = world.directory.appendingPathComponent("a-file").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        let unreadable = world.directory.appendingPathComponent("unreadable").path
        try FileManager.default.createDirectory(atPath: unreadable, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o000])
        defer { chmod(unreadable, 0o700) }
        var cases = [
            (world.directory.appendingPathComponent("missing").path, "was not found (ENOENT)"),
            (file + "/pam.d", "cannot be reached (ENOTDIR: a part of the path is not a directory)"),
            (file, "is not a directory"),
        ]
        if geteuid() != 0 { cases.append((unreadable, "cannot be read (EACCES: permission denied)")) }
        for (directory, expected) in cases {
            let result = try world.run(["--json", "--pam-confdir", directory, "auth", "--no-interaction"])
            #expect(result.status == 5, "\(result)")
            let message = result.json?["message"] as? String ?? ""
            #expect(message == "The PAM configuration directory \(directory) \(expected).", "\(result)")
            let text = try world.run(["--pam-confdir", directory, "auth", "--no-interaction"])
            #expect(text.stderr.contains("\(directory) \(expected). (passcodeNotSet)"), "\(text)")
        }
    }
}
