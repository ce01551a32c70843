import Glibc
import TouchGate
import TouchGateSystem

extension Runner {
    /// `touchgate watch`: `--unit` prints the systemd user unit; otherwise this process resolves
    /// the store and the user once (the store is made if missing, and said so) and becomes
    /// `touchgate-watch` with them (``WatcherCommandLine``), so that only the
    /// watcher loads libdbus-1, not every `touchgate` the shell hooks and tmux start.
    func watch(unit: Bool) throws -> ExitCode {
        if unit {
            writeLine(STDOUT_FILENO, systemdUnit())
            return .success
        }
        // Found first: without a watcher, nothing is opened or made.
        let watcher = try findLibexecProgram(Self.watcherName, for: "touchgate watch")
        let name = try user
        let (path, id) = try {
            let store = try openStore()
            return (absolutePath(store.path).string, try store.storeID())
        }()
        let line = WatcherCommandLine(storePath: path, storeID: id, user: name, json: invocation.json)
        var argv: [UnsafeMutablePointer<CChar>?] = ([watcher] + line.arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        execv(watcher, &argv)
        return fail("cannot run \(watcher.escapedForMessage): \(Errno.current)", .unavailable)
    }

    /// Where the program `name` that `command` runs is (`touchgate-watch`, `touchgate-demo`):
    /// first beside this executable, then in `../libexec/touchgate/` from its directory (where
    /// `scripts/install` puts it); exit 69 (`EX_UNAVAILABLE`) when neither is there.
    func findLibexecProgram(_ name: String, for command: String) throws(UsageError) -> String {
        let executable = executablePath()
        // Without /proc there is no directory to trust (never the current one).
        guard executable.hasPrefix("/"), let slash = executable.lastIndex(of: "/") else {
            throw UsageError("\(command) cannot find its own executable (/proc/self/exe)", exitCode: .unavailable)
        }
        let directory = String(executable[..<slash])
        let candidates = [directory + "/" + name, directory + "/../libexec/touchgate/" + name]
        guard let path = candidates.first(where: { access($0, X_OK) == 0 }) else {
            throw UsageError("\(command) needs \(name), which is neither in \(directory.escapedForMessage) "
                             + "nor in \((directory + "/../libexec/touchgate").escapedForMessage)", exitCode: .unavailable)
        }
        return path
    }

    /// The watcher's executable, installed beside `touchgate` or in `PREFIX/libexec/touchgate/`.
    static let watcherName = "touchgate-watch"

    /// The systemd user unit `touchgate watch --unit` prints (systemd/touchgate-watch.service).
    func systemdUnit() -> String {
        let line = TouchGateCommandLine(executable: executablePath(), storePath: invocation.storePath,
                                        storeID: invocation.storeID, user: invocation.user)
        return """
            # touchgate watch: lock every terminal session when the machine suspends or the screen locks.
            # Install: touchgate watch --unit > ~/.config/systemd/user/touchgate-watch.service
            #          systemctl --user enable --now touchgate-watch
            [Unit]
            Description=touchgate: lock terminal sessions on suspend and screen lock

            [Service]
            Type=simple
            ExecStart=\(line.systemdCommand(["watch"]))
            Restart=on-failure
            RestartSec=5
            # 75: a watcher already runs for this user and store; starting again would not help.
            RestartPreventExitStatus=75

            [Install]
            WantedBy=default.target
            """
    }
}
