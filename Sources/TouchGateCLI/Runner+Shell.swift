import Glibc
import TouchGate
import TouchGateOwner
import TouchGateSystem

extension Runner {
    /// `touchgate shell [-- PROGRAM ARGS]`: holds the terminal and runs the program on a
    /// pseudo-terminal of its own (``ShellOwner``), under the lock.
    ///
    /// Inside tmux the client lock is the lock (the tmux integration), inside another owner the
    /// outer one holds the terminal, and without a terminal there is no screen to cover: the
    /// program then simply replaces this process.
    func shell(_ program: [String], login: Bool = false) throws -> ExitCode {
        // At once, before any work: a key held down while the owner starts must not end it
        // (the terminal's raw mode, set below, then makes Ctrl-C a plain byte).
        SignalRelay.ignore([SIGINT, SIGQUIT, SIGTSTP])
        let (path, argv) = try programToRun(program, login: login)
        let direct = ShellSession.runsProgramDirectly(
            insideTmux: environment["TMUX"].map { !$0.isEmpty } ?? false,
            insideOwner: environment[Self.ownerVariable].map { !$0.isEmpty } ?? false,
            onTerminal: isatty(STDIN_FILENO) != 0 && isatty(STDOUT_FILENO) != 0,
            // tcgetsid answers only for this process's controlling terminal.
            controllingTerminal: tcgetsid(STDIN_FILENO) >= 0)
        if direct { return execProgram(path, argv) }

        let name = try user
        guard let me = ProcessIdentity.current else {
            return fail("shell: cannot name this process (/proc)", .internalError)
        }
        // SIGUSR1 (the watcher's "look at your session now") waits until the owner's loop
        // handles it; its default action would end the owner.
        var usr1 = sigset_t()
        sigemptyset(&usr1)
        sigaddset(&usr1, SIGUSR1)
        pthread_sigmask(SIG_BLOCK, &usr1, nil)
        // The channel first, in the user's private directory (no other account can take its
        // name): an owner no one can reach at a suspend would run uncovered, so it does not start.
        let channelDirectory: String
        let channel: Int32
        do {
            channelDirectory = try OwnerChannelDirectory.prepare(runtimeDirectory: environment["XDG_RUNTIME_DIR"], uid: geteuid())
            channel = try OwnerChannel.listen(owner: me, directory: channelDirectory)
        } catch {
            return fail("shell: cannot set up the owner's channel, not starting an unprotected shell: \(error)", .unavailable)
        }
        defer {
            close(channel)
            OwnerChannel.remove(owner: me, directory: channelDirectory)
        }
        // The store, once: a store that cannot be read (or fails later) locks the session, and
        // the gate then asks offline for the passcode.
        let store: Store? = try? openStore()
        // The id the snippet carries (--store-id), else the one read now: a store deleted or
        // replaced later is damage for the gate (the passcode), never a new store with the lock off.
        let storeID = invocation.storeID ?? (try? store?.storeID()) ?? nil
        let session = ShellSession(store: store, id: "shell-\(getpid())-\(randomHex())", user: name, owner: me, probe: probe)
        let id = session.id
        // Listening (above) before it is listed: whoever finds this owner in the store can reach it.
        session.start()

        var gate = [executablePath()]
        if let path = try? storePath { gate += ["--store", absolutePath(path)] }
        if let storeID { gate += ["--store-id", storeID] }
        gate += ["--user", name]
        if let directory = pamConfigurationDirectory { gate += ["--pam-confdir", directory] }
        gate += ["gate", "--session", id]

        var variables = environmentEntries().filter { !$0.hasPrefix("TOUCHGATE_SESSION=") && !$0.hasPrefix(Self.ownerVariable + "=") }
        variables += ["TOUCHGATE_SESSION=" + id, Self.ownerVariable + "=" + id]
        // The store the owner reads: a touchgate command typed inside that makes a new store elsewhere says so.
        if let path = hookStorePath {
            variables = variables.filter { !$0.hasPrefix("TOUCHGATE_HOOK_STORE=") } + ["TOUCHGATE_HOOK_STORE=" + path]
        }
        let owner = ShellOwner(session: ShellOwnerSession(
            check: session.check, look: session.lookAtLock, record: session.record, gate: gate, path: path, argv: argv,
            environment: variables, channel: channel, clock: clock, idleSeconds: session.idleSeconds))
        let status = owner.run()
        session.end()
        return ExitCode(rawValue: status)
    }

    /// Set in the program's environment to its session: a `touchgate shell` started inside runs
    /// its program directly (the outer owner holds the terminal).
    static let ownerVariable = "TOUCHGATE_SHELL_SESSION"

    /// The program's path and argument vector: `program` as given (found in `PATH`), else the
    /// user's shell from the password database, else `$SHELL`, else `/bin/sh`; a touchgate
    /// wrapper is never its own shell. A login shell's `argv[0]` starts with `-`.
    func programToRun(_ program: [String], login: Bool) throws -> (String, [String]) {
        if let first = program.first {
            guard let path = findInPath(first) else {
                throw UsageError("shell: no program '\(first.escapedForMessage)' in PATH", exitCode: .badValue)
            }
            // A login shell's argv[0] starts with '-' (login, sshd and su start it so).
            let base = String(path.split(separator: "/").last ?? Substring(path))
            return (path, login ? ["-" + base] + program.dropFirst() : program)
        }
        var candidates: [String] = []
        if let entry = getpwuid(getuid()), let shell = entry.pointee.pw_shell { candidates.append(String(cString: shell)) }
        if let shell = environment["SHELL"] { candidates.append(shell) }
        candidates.append("/bin/sh")
        let path = candidates.first { $0.hasPrefix("/") && !$0.split(separator: "/").last!.hasPrefix("touchgate") && access($0, X_OK) == 0 }
            ?? "/bin/sh"
        let base = String(path.split(separator: "/").last ?? "sh")
        return (path, [login ? "-" + base : base])
    }

    private func findInPath(_ name: String) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        for directory in (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            var info = stat()
            if access(candidate, X_OK) == 0, stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG { return candidate }
        }
        return nil
    }

    /// Replaces this process with the program, every signal back at its default.
    ///
    /// The corresponding C function is `execv`.
    private func execProgram(_ path: String, _ argv: [String]) -> ExitCode {
        for number in [SIGINT, SIGQUIT, SIGTSTP] { signal(number, SIG_DFL) }
        var arguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for pointer in arguments { free(pointer) } }
        execv(path, &arguments)
        return fail("shell: cannot run \(path.escapedForMessage): \(Errno.current)", .unavailable)
    }

    /// This process's environment, `NAME=value` each.
    private func environmentEntries() -> [String] {
        var entries: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            entries.append(String(cString: entry))
            pointer += 1
        }
        return entries
    }

    private func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<8).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
