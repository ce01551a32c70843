import Foundation
import Testing

/// `touchgate-login-shell` as an account's login shell (``PAMHost``'s namespace: its own passwd,
/// shells and PAM stacks), started by the real `su`, `runuser` and `sudo` as root, and with no
/// terminal as sshd starts it for `ssh host CMD` (scp, sftp and rsync run their commands that
/// way: one test covers them): the command runs, a gate asks at most once at the terminal the
/// wrapper has, and Ctrl-C at the wrapper's gate before anything started ends it.
@Suite(.serialized) struct LoginShellTests {
    static let gateTitle = "touchgate: this session is locked"

    /// A host whose user logs in to the built touchgate as touchgate-login-shell, her lock on.
    static func lockedHost() throws -> (PAMHost, wrapper: String) {
        let host = try PAMHost()
        let wrapper = try host.installLoginShell()
        // Enabled with her password (pam_unix in the namespace's touchgate stack), in her own store.
        let enable = try host.run(asUser(["-S", "enable"], host), input: PAMHost.password + "\n")
        guard enable.status == 0 else { throw TestFailure("enable: \(enable)") }
        return (host, wrapper)
    }

    /// `touchgate ARGUMENTS` as the user, in her home, with nothing of the test's environment.
    static func asUser(_ arguments: [String], _ host: PAMHost, program: String = TestEnvironment.binary) -> [String] {
        PAMHost.asUser(["/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=\(host.home(PAMHost.user))", "TERM=xterm", program]
                       + arguments)
    }

    /// su and runuser with -c start the shell in a session of its own (no controlling terminal)
    /// with the caller's terminal on its standard input: no gate could ask there. The command runs
    /// at once, its status is the wrapper's, and nothing is retried.
    @Test(arguments: [["su", PAMHost.user, "-c"], ["runuser", "-l", PAMHost.user, "-c"], ["su", "-", PAMHost.user, "-c"]])
    func aCommandStartedBySuOrRunuserRuns(_ starter: [String]) throws {
        let (host, _) = try Self.lockedHost()
        let terminal = try host.terminal(starter + ["echo ran-$((6 * 7)) as $(id -un); exit 3"])
        let status = try terminal.wait(timeout: 60)
        #expect(status == 3, "\(terminal.screen.debugDescription)")
        #expect(terminal.screen.contains("ran-42 as \(PAMHost.user)"), "\(terminal.screen.debugDescription)")
        #expect(!terminal.screen.contains(Self.gateTitle) && !terminal.screen.contains("starts again"),
                "\(terminal.screen.debugDescription)")
    }

    /// An interactive shell that `su USER -c 'bash -i'` starts has a terminal on its standard
    /// input but no controlling terminal: the shell-init line in its rc file does nothing there
    /// (`touchgate shell` would run that shell directly, which would read the line again, for
    /// ever), and the command runs.
    @Test func theShellInitLineDoesNothingWithoutAControllingTerminal() throws {
        let (host, _) = try Self.lockedHost()
        let home = host.home(PAMHost.user)
        let snippet = try host.run(Self.asUser(["shell-init", "bash"], host))
        guard snippet.status == 0 else { throw TestFailure("shell-init: \(snippet)") }
        try snippet.stdout.write(toFile: home + "/.bashrc", atomically: true, encoding: .utf8)
        let terminal = try host.terminal(["su", PAMHost.user, "-c", "bash -i -c 'echo ran-$((6 * 7)); exit 3'"])
        let status = try terminal.wait(timeout: 60)
        #expect(status == 3, "\(terminal.screen.debugDescription)")
        #expect(terminal.screen.contains("ran-42"), "\(terminal.screen.debugDescription)")
        #expect(!terminal.screen.contains("touchgate:"), "\(terminal.screen.debugDescription)")
    }

    /// `sudo -i -u USER CMD` (here without sudo's own pty) keeps the caller's terminal as the
    /// controlling terminal: the wrapper's gate asks there once, then the command runs.
    @Test func sudoLoginAsksOnceAtItsTerminalThenRunsTheCommand() throws {
        let (host, _) = try Self.lockedHost()
        let terminal = try host.terminal(["sudo", "-i", "-u", PAMHost.user, "sh", "-c", "echo ran-as-$(id -un); exit 3"])
        try terminal.waitFor(Self.gateTitle, timeout: 60)
        try terminal.waitFor("Password:", timeout: 30)
        terminal.type(PAMHost.password + "\r")
        let status = try terminal.wait(timeout: 60)
        #expect(status == 3, "\(terminal.screen.debugDescription)")
        #expect(terminal.screen.contains("ran-as-\(PAMHost.user)"), "\(terminal.screen.debugDescription)")
        #expect(!terminal.screen.contains(PAMHost.password))
    }

    /// sshd runs `ssh host CMD` (and scp, sftp, rsync) as `touchgate-login-shell -c CMD` with no
    /// terminal at all: the command runs in the real shell, its output and status the wrapper's.
    @Test func aCommandWithoutATerminalRunsAsSshdRunsIt() throws {
        let (host, wrapper) = try Self.lockedHost()
        let result = try host.run(Self.asUser(["-c", "echo ran-$((6 * 7)); cat; exit 3"], host, program: wrapper),
                                  input: "from-stdin\n")
        #expect(result.status == 3, "\(result)")
        #expect(result.stdout == "ran-42\nfrom-stdin\n", "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
    }

    /// At a login on a terminal (argv[0] "-touchgate-login-shell"), Ctrl-C at the first gate ends
    /// the wrapper: nothing has started (the login shell never read its profile), exit 2, one line.
    @Test func ctrlCAtTheFirstGateOfALoginEndsTheWrapper() throws {
        let (host, wrapper) = try Self.lockedHost()
        let home = host.home(PAMHost.user)
        try "touch '\(home)/profile-ran'\n".write(toFile: home + "/.bash_profile", atomically: true, encoding: .utf8)
        let terminal = try host.terminal(Self.asUser(["-c", "exec -a -touchgate-login-shell '\(wrapper)'"], host, program: "/bin/bash"))
        try terminal.waitFor(Self.gateTitle, timeout: 60)
        try terminal.waitFor("Password:", timeout: 30)
        terminal.type("\u{03}")
        let status = try terminal.wait(timeout: 30)
        #expect(status == 2, "\(terminal.screen.debugDescription)")
        #expect(terminal.screen.contains("touchgate: shell: cancelled at the gate before the session started (exit 2)"),
                "\(terminal.screen.debugDescription)")
        #expect(!FileManager.default.fileExists(atPath: home + "/profile-ran"))
    }
}
