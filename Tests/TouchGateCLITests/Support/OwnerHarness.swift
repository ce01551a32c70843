import Foundation
import Testing

/// `touchgate shell` holding a real pseudo-terminal: the pane of a tmux server of its own (own
/// socket, no configuration), which the test reads (`capture-pane`, and every raw byte the owner
/// writes to its terminal through `pipe-pane`) and types at (`send-keys`) as a person would.
///
/// The owner runs outside tmux as far as it can tell (`TMUX` unset) and runs a real program:
/// `bash -i`, `zsh -i`, `fish -i` or `dash -i` with a prompt the test knows, or any command.
final class OwnerHarness: PaneScreen {
    var screenName: String { "owner's" }
    let world: TestEnvironment
    let socket: String
    let home: URL
    /// Every byte the pane's program (the owner) wrote to its terminal.
    let rawPath: String
    /// Where the pane writes the owner's exit status when it ends.
    var statusPath: String { rawPath + ".status" }
    private(set) var command = ""
    var serverPID: pid_t?
    static let prompt = "READY$"

    /// The owner's files for `name` (its tmux socket, home, raw output); the command is set by
    /// the initializer that calls this one.
    private init(world: TestEnvironment, name: String) throws {
        self.world = world
        socket = world.directory.appendingPathComponent("owner-\(name).sock").path
        home = world.directory.appendingPathComponent("home-owner-\(name)")
        rawPath = world.directory.appendingPathComponent("owner-\(name).raw").path
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    /// - Parameters:
    ///   - shell: `bash`, `zsh`, `fish` or `dash`, started interactive with `READY$ ` as its prompt;
    ///     `rcLines` run first in its rc file (bash, zsh).
    convenience init(world: TestEnvironment, shell: String, rcLines: String = "") throws {
        try self.init(world: world, name: shell)
        let program: String
        switch shell {
        case "zsh":
            let rc = "PS1='\(Self.prompt) '\nunsetopt PROMPT_SP\nRPROMPT=\nHISTFILE=/dev/null\n\(rcLines)\n"
            try rc.write(to: home.appendingPathComponent(".zshrc"), atomically: true, encoding: .utf8)
            program = "env ZDOTDIR='\(home.path)' /usr/bin/zsh -i"
        case "fish":
            let config = home.appendingPathComponent(".config/fish")
            try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
            let rc = "function fish_prompt; printf '\(Self.prompt) '; end\nfunction fish_greeting; end\n"
                + "set -g fish_autosuggestion_enabled 0\n\(rcLines)\n"
            try rc.write(to: config.appendingPathComponent("config.fish"), atomically: true, encoding: .utf8)
            program = "env HOME='\(home.path)' XDG_CONFIG_HOME='\(config.deletingLastPathComponent().path)' /usr/bin/fish -i"
        case "dash":
            program = "env PS1='\(Self.prompt) ' ENV= /usr/bin/dash -i"
        default:
            let rc = "PS1='\(Self.prompt) '\nHISTFILE=/dev/null\n\(rcLines)\n"
            let path = home.appendingPathComponent(".bashrc").path
            try rc.write(toFile: path, atomically: true, encoding: .utf8)
            program = "/bin/bash --noprofile --rcfile '\(path)' -i"
        }
        command = Self.ownerCommand(program)
    }

    /// An owner running `program` (a shell command line, run by `/bin/sh -c`).
    convenience init(world: TestEnvironment, name: String, program: String) throws {
        try self.init(world: world, name: name)
        command = Self.ownerCommand("/bin/sh -c \"\(program.replacingOccurrences(of: "\"", with: "\\\""))\"")
    }

    /// A pane that runs `paneCommand` itself (a login-shell wrapper started as login starts it),
    /// then writes its exit status as the owner's.
    convenience init(world: TestEnvironment, name: String, paneCommand: String) throws {
        try self.init(world: world, name: name)
        command = "unset TMUX TMUX_PANE; \(paneCommand); echo $? > \"$OWNER_STATUS\"; while :; do sleep 600; done"
    }

    /// The pane: the owner with `program` after `--`, as a terminal emulator starts it (every
    /// signal at its default), then its exit status written to ``statusPath``.
    private static func ownerCommand(_ program: String) -> String {
        "unset TMUX TMUX_PANE; '\(TestEnvironment.binary)' shell -- \(program); echo $? > \"$OWNER_STATUS\"; while :; do sleep 600; done"
    }

    deinit { shutdown() }

    /// Starts the server with the owner in its pane, and records the pane's raw output from the
    /// first byte (the pane starts only once `pipe-pane` is in place).
    func start(width: Int = 100, height: Int = 30) throws {
        _ = FileManager.default.createFile(atPath: rawPath, contents: Data())
        let gate = world.directory.appendingPathComponent("owner-go-\(UUID().uuidString)").path
        // The pane's own shell survives the keys a test sends while the owner starts (a handler,
        // not an ignored signal: the owner starts with every signal at its default, as from a
        // terminal emulator, and must protect itself).
        let waiting = "OWNER_STATUS='\(statusPath)'; trap : INT QUIT TSTP; while [ ! -e '\(gate)' ]; do sleep 0.01; done; " + command
        try tmux(["-f", "/dev/null", "new-session", "-d", "-s", "o", "-x", String(width), "-y", String(height),
                  "/bin/sh", "-c", waiting])
        try recordServerPID()
        try tmux(["pipe-pane", "-o", "-t", "o", "cat >> '\(rawPath)'"])
        _ = FileManager.default.createFile(atPath: gate, contents: Data())
    }

    func screen() throws -> String { try tmux(["capture-pane", "-p", "-t", "o"]).stdout }

    /// Every byte the owner wrote to its terminal so far.
    func rawOutput() -> Data { FileManager.default.contents(atPath: rawPath) ?? Data() }

    /// Whether the owner (`pid`) had drawn a cover (CSI 2 J) after byte `offset` of its raw output
    /// by the time this is called. The raw output reaches its file through tmux's pipe-pane and
    /// cat, later than the owner wrote it, so the owner is stopped (SIGSTOP) while its earlier
    /// output arrives (up to 10 s), and goes on afterwards: what it writes after the call never counts.
    func coverDrawn(since offset: Int, by pid: pid_t) -> Bool {
        kill(pid, SIGSTOP)
        defer { kill(pid, SIGCONT) }
        let cover = Data("\u{1B}[2J".utf8)
        let deadline = Date().addingTimeInterval(10)
        repeat {
            if rawOutput().dropFirst(offset).range(of: cover) != nil { return true }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return false
    }

    func keys(_ keys: String...) throws { try tmux(["send-keys", "-t", "o"] + keys) }

    /// Types `text` literally (each byte as it is), then Enter.
    func typeLine(_ text: String) throws {
        if !text.isEmpty { try tmux(["send-keys", "-t", "o", "-l", text]) }
        try keys("Enter")
    }

    /// Types `text` literally, no Enter.
    func type(_ text: String) throws { try tmux(["send-keys", "-t", "o", "-l", text]) }

    /// The owner's session id and pid, once it registered.
    func owner(timeout: TimeInterval = 15) throws -> (session: String, pid: pid_t) {
        var row = ""
        try gateEventually("the owner's row in the store", timeout: timeout) {
            row = try world.sqlite("SELECT session || ' ' || pid FROM shell_owners LIMIT 1")
            return !row.isEmpty
        }
        let parts = row.split(separator: " ")
        return (String(parts[0]), pid_t(parts[1])!)
    }

    /// The owner's exit status, once it ended.
    func exitStatus(timeout: TimeInterval = 30) throws -> Int {
        var status: Int?
        try gateEventually("the owner to end", timeout: timeout) {
            status = (try? String(contentsOfFile: statusPath, encoding: .utf8))
                .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            return status != nil
        }
        return status!
    }

    /// True once the owner ended.
    func ended() throws -> Bool { FileManager.default.fileExists(atPath: statusPath) }
}
