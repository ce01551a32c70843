import Foundation
import Testing

/// `touchgate completions bash|zsh` loaded into a real interactive shell (`bash -i`, `zsh -i`
/// with compinit) in the pane of a private tmux server: typing a few words and Tab completes
/// them on the screen.
@Suite(.serialized) struct CompletionTests {
    /// Typed, then Tab, then `#`; the screen must show the expected line (a completed word is
    /// followed by a space, so the `#` shows the completion was whole).
    static let cases = [
        ("touchgate sta", "touchgate status #"),
        ("touchgate enroll --no-", "touchgate enroll --no-interaction #"),
        ("touchgate --json config get max-b", "touchgate --json config get max-biometric-failures #"),
        ("touchgate config set idle", "touchgate config set idle-seconds #"),
        ("touchgate event did-e", "touchgate event did-enter-background #"),
        ("touchgate auth --policy bio", "touchgate auth --policy biometrics #"),
        ("touchgate completions z", "touchgate completions zsh #"),
    ]

    @Test(arguments: ["bash", "zsh"])
    func completesCommandsOptionsKeysEventsAndPolicies(shell: String) throws {
        let world = try TestEnvironment()
        let home = world.directory.appendingPathComponent("completion-\(shell)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let script = try world.run(["completions", shell])
        #expect(script.status == 0, "\(script)")
        let start: String
        if shell == "zsh" {
            // compinit autoloads _touchgate from a directory in fpath; -D: no dump file, -u: no
            // ownership checks of the test's directories.
            try script.stdout.write(to: home.appendingPathComponent("_touchgate"), atomically: true, encoding: .utf8)
            let rc = """
                PS1='READY$ '
                unsetopt PROMPT_SP
                RPROMPT=
                HISTFILE=/dev/null
                fpath=('\(home.path)' $fpath)
                autoload -Uz compinit
                compinit -u -D
                """
            try rc.write(to: home.appendingPathComponent(".zshrc"), atomically: true, encoding: .utf8)
            start = "exec env -u TMUX -u TMUX_PANE ZDOTDIR='\(home.path)' /usr/bin/zsh -i"
        } else {
            let completions = home.appendingPathComponent("touchgate.bash").path
            try script.stdout.write(toFile: completions, atomically: true, encoding: .utf8)
            let rc = "PS1='READY$ '\nHISTFILE=/dev/null\nsource '\(completions)'\n"
            let path = home.appendingPathComponent(".bashrc").path
            try rc.write(toFile: path, atomically: true, encoding: .utf8)
            start = "exec env -u TMUX -u TMUX_PANE /bin/bash --noprofile --rcfile '\(path)' -i"
        }
        let socket = world.directory.appendingPathComponent("completion-\(shell).sock").path
        let environment = TmuxHarness.environment(of: world)
        func tmux(_ arguments: [String]) throws -> RunResult {
            let result = try TmuxHarness.spawn("/usr/bin/tmux", ["-S", socket] + arguments, environment: environment, timeout: 20)
            guard result.status == 0 else { throw TestFailure("tmux \(arguments) failed: \(result)") }
            return result
        }
        _ = try tmux(["-f", "/dev/null", "new-session", "-d", "-s", "c", "-x", "160", "-y", "50", start])
        defer { _ = try? tmux(["kill-server"]) }
        var screen = ""
        func waitFor(_ text: String) throws {
            do {
                try gateEventually("'\(text)' on the \(shell) screen", timeout: 30) {
                    screen = try tmux(["capture-pane", "-p", "-t", "c"]).stdout
                    return screen.contains(text)
                }
            } catch {
                throw TestFailure("'\(text)' never appeared on the \(shell) screen; last screen:\n\(screen)")
            }
        }
        try waitFor("READY$")
        for (typed, expected) in Self.cases {
            _ = try tmux(["send-keys", "-t", "c", "-l", typed])
            _ = try tmux(["send-keys", "-t", "c", "Tab"])
            _ = try tmux(["send-keys", "-t", "c", "-l", "#"])
            try waitFor("READY$ \(expected)")
            // Abandon the line: the next one starts at a fresh prompt.
            _ = try tmux(["send-keys", "-t", "c", "C-c"])
            try gateEventually("a fresh \(shell) prompt", timeout: 30) {
                screen = try tmux(["capture-pane", "-p", "-t", "c"]).stdout
                return screen.split(separator: "\n").last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }?
                    .trimmingCharacters(in: .whitespaces) == "READY$"
            }
        }
    }
}
