import Foundation
import Testing

/// An interactive shell (`bash -i` or `zsh -i`) in a real pseudo-terminal: the pane of a tmux
/// server of its own (own socket, no configuration), which the test reads (`capture-pane`) and
/// types at (`send-keys`) as a person at the terminal would.
///
/// The shell's rc file is the user's own lines (`userLines`) followed by
/// `eval "$(touchgate shell-init SHELL)"`; the shell runs outside tmux as far as it can tell
/// (`TMUX` unset), with the world's store, user and PAM stacks.
final class ShellHarness: PaneScreen {
    var screenName: String { shell }
    let world: TestEnvironment
    let shell: String
    let socket: String
    /// The pane's command: the shell, or a `bash -m -c` that runs it `runs` times, one after the other.
    private(set) var command = ""
    var serverPID: pid_t?
    static let prompt = "READY$"

    /// - Parameters:
    ///   - userLines: the user's own rc lines, before the snippet.
    ///   - runs: how many shells run one after the other on the same terminal (the next starts
    ///     when the previous one ends).
    ///   - generatedFile: the rc file sources a snippet generated once, now, into a file (as
    ///     README installs it), instead of `eval`-ing a new one in every shell.
    init(world: TestEnvironment, shell: String, userLines: String = "", runs: Int = 1, generatedFile: Bool = false) throws {
        self.world = world
        self.shell = shell
        socket = world.directory.appendingPathComponent("shell-\(shell).sock").path
        let home = world.directory.appendingPathComponent("home-\(shell)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        var snippet = "eval \"$('\(TestEnvironment.binary)' shell-init \(shell))\""
        if generatedFile {
            let generated = try TestEnvironment.execute(
                TestEnvironment.binary, ["shell-init", shell], environment: TmuxHarness.environment(of: world))
            guard generated.status == 0 else { throw TestFailure("shell-init failed: \(generated)") }
            let path = home.appendingPathComponent("init.\(shell)").path
            try generated.stdout.write(toFile: path, atomically: true, encoding: .utf8)
            snippet = "source '\(path)'"
        }
        let start: String
        if shell == "zsh" {
            // No end-of-line marker or right prompt: the screen shows only what the test expects.
            let rc = "PS1='\(Self.prompt) '\nunsetopt PROMPT_SP\nRPROMPT=\nHISTFILE=/dev/null\n\(userLines)\n\(snippet)\n"
            try rc.write(to: home.appendingPathComponent(".zshrc"), atomically: true, encoding: .utf8)
            start = "env -u TMUX -u TMUX_PANE ZDOTDIR='\(home.path)' /usr/bin/zsh -i"
        } else {
            let rc = "PS1='\(Self.prompt) '\nHISTFILE=/dev/null\n\(userLines)\n\(snippet)\n"
            let path = home.appendingPathComponent(".bashrc").path
            try rc.write(toFile: path, atomically: true, encoding: .utf8)
            // HOME is the rc file's directory: the shell the snippet's owner starts (`bash -i`) reads it too.
            start = "env -u TMUX -u TMUX_PANE HOME='\(home.path)' /bin/bash --noprofile --rcfile '\(path)' -i"
        }
        // Several shells run from a parent with job control, as from an interactive shell: it gives
        // each the terminal, and takes it back when one dies without handing it back (SIGKILL).
        let sequence = Array(repeating: start, count: runs).joined(separator: "; ") + "; echo ALL-SHELLS-ENDED; sleep 600"
        command = runs == 1 ? "exec \(start)" : "exec /bin/bash --norc --noprofile -m -c \"" + sequence.replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    deinit { shutdown() }

    /// Starts the server and the shell in its pane.
    func start() throws {
        try tmux(["-f", "/dev/null", "new-session", "-d", "-s", "sh", "-x", "120", "-y", "40", command])
        try recordServerPID()
    }

    /// What the terminal shows.
    func screen() throws -> String { try tmux(["capture-pane", "-p", "-t", "sh"]).stdout }

    /// Types tmux keys in one `send-keys` (`Enter`, `C-c`; anything that is not a key name is typed as text).
    func keys(_ keys: String...) throws { try tmux(["send-keys", "-t", "sh"] + keys) }

    /// Types `text`, Enter and Ctrl-C: in one `send-keys` (the keys arrive together), or, with
    /// `delay`, Ctrl-C that many milliseconds (and a process start) after Enter, timed inside the
    /// tmux server (`run-shell` holds its command queue), while the shell starts on the line.
    func typeAndInterrupt(_ text: String, delay: Int?) throws {
        guard let delay else { return try keys(text, "Enter", "C-c") }
        try tmux(["send-keys", "-t", "sh", text, "Enter", ";", "run-shell", "sleep 0.\(String(format: "%03d", delay))",
                  ";", "send-keys", "-t", "sh", "C-c"])
    }

    /// Types `text` literally, then Enter.
    func typeLine(_ text: String) throws {
        if !text.isEmpty { try tmux(["send-keys", "-t", "sh", "-l", text]) }
        try keys("Enter")
    }

    /// The session ids in the store, oldest first: those the shells on this terminal made
    /// (`shell-<pid>-<random>`), as the world has no others.
    func shellSessions() throws -> [String] {
        try world.sqlite("SELECT id FROM sessions ORDER BY rowid")
            .split(separator: "\n").map(String.init)
    }

    /// The pid of the gate that holds session `id`'s prompt, once one does.
    func gatePID(_ id: String, excluding old: pid_t? = nil, timeout: TimeInterval = 15) throws -> pid_t {
        var pid: pid_t?
        try gateEventually("a gate holding \(id)", timeout: timeout) {
            pid = pid_t(try world.sqlite("SELECT prompt_pid FROM sessions WHERE id = '\(id)' AND prompt_kind = 'gate'"))
            return pid != nil && pid != old && kill(pid!, 0) == 0
        }
        return pid!
    }
}
