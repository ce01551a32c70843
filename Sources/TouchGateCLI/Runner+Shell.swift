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
        let (path, argv) = try invocationContext.programToRun(program, login: login)
        let direct = ShellSession.runsProgramDirectly(
            insideTmux: environment["TMUX"].map { !$0.isEmpty } ?? false,
            insideOwner: environment[ShellSession.ownerVariable].map { !$0.isEmpty } ?? false,
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
        let channelDirectory: FilePath
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
        let session = ShellSession(store: store, id: ShellSession.newID(), user: name, owner: me, probe: probe)
        let id = session.id
        // Listening (above) before it is listed: whoever finds this owner in the store can reach it.
        session.start()

        let gate = TouchGateCommandLine(executable: executablePath(), storePath: (try? storePath).map { absolutePath($0).string }, storeID: storeID,
                                        user: name, pamConfigurationDirectory: pamConfigurationDirectory).words(["gate", "--session", id])

        let variables = ShellSession.programEnvironment(environment.entries, session: id, hookStore: hookStorePath)
        let owner = ShellOwner(session: ShellOwnerSession(
            check: session.check, look: session.lookAtLock, record: session.record, gate: gate, path: path, argv: argv,
            environment: variables, channel: channel, clock: clock, idleSeconds: session.idleSeconds))
        let status = owner.run()
        session.end()
        return ExitCode(rawValue: status)
    }

    /// Replaces this process with the program, every signal back at its default.
    ///
    /// The corresponding C function is `execv`.
    private func execProgram(_ path: FilePath, _ argv: [String]) -> ExitCode {
        for number in [SIGINT, SIGQUIT, SIGTSTP] { signal(number, SIG_DFL) }
        var arguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for pointer in arguments { free(pointer) } }
        execv(path.string, &arguments)
        return fail("shell: cannot run \(path.string.escapedForMessage): \(Errno.current)", .unavailable)
    }
}
