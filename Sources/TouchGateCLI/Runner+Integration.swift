import Glibc
import TouchGate
import TouchGateSystem

extension Runner {
    /// What the generated snippets carry (see ``SnippetBake``): the global options of the
    /// command line or of the environment `tmux-conf` or `shell-init` runs in, fixed from then on.
    /// The store path is baked from the root, so every hook reads the same file wherever it runs.
    ///
    /// The snippets name the store they were made for by its id: one deleted, moved or replaced
    /// later is damage (the gate then asks for the passcode), not a new store with the lock off.
    /// Reading that id opens the store, making it if it is missing; both that and a store that
    /// cannot be read (the snippet then carries no id) are said on standard error and in the
    /// snippet's comment.
    func bakeSnippet() -> SnippetBake {
        var bake = SnippetBake(line: TouchGateCommandLine(executable: executablePath()))
        // As the store path resolves: an empty value means the default store.
        if let path = invocationContext.namedStorePath {
            bake.line.storePath = absolutePath(FilePath(path)).string
            bake.sources["--store"] = invocation.storePath == nil ? "TOUCHGATE_STORE" : "--store"
        }
        if let id = invocation.storeID {
            bake.line.storeID = id
            bake.sources["--store-id"] = "--store-id"
        } else {
            do {
                let store = try Store(path: absolutePath(try storePath))
                bake.line.storeID = try store.storeID()
                bake.sources["--store-id"] = "the store's own id"
                bake.madeStore = store.createdByThisProcess
                if let notice = invocationContext.newStoreNotice(store, forSnippet: true) { printError(notice) }
            } catch {
                // A StoreError prints as its description.
                bake.storeProblem = "\(error)"
                printError("the snippet carries no store id: \(error)")
            }
        }
        bake.take(\.user, "--user", given: invocation.user, variable: "TOUCHGATE_USER", from: { environment[$0] })
        bake.take(\.pamConfigurationDirectory, "--pam-confdir", given: invocation.pamConfigurationDirectory,
                  variable: "TOUCHGATE_PAM_CONFDIR", from: { environment[$0] })
        return bake
    }

    /// The path of the store the snippets' commands read, from the root, as it resolves where
    /// they are generated (exported to the session as `TOUCHGATE_HOOK_STORE`, see ``openStore()``).
    var hookStorePath: String? { (try? storePath).map { absolutePath($0).string } }

    /// `touchgate tmux-conf`: a snippet for `~/.tmux.conf` (``IntegrationSnippet/tmuxConf(_:hookStorePath:)``).
    func tmuxConf() -> ExitCode {
        writeLine(STDOUT_FILENO, IntegrationSnippet.tmuxConf(bakeSnippet(), hookStorePath: hookStorePath))
        return .success
    }

    /// What the hooks from ``tmuxConf()`` run (``TmuxHookEvents``).
    func tmuxHook(_ hook: TmuxHook, client: String, session tmuxSession: String?) throws -> ExitCode {
        if tmuxSession == nil, hook == .sessionCreated || hook == .clientSessionChanged {
            throw UsageError("usage: touchgate tmux-hook \(hook.rawValue) CLIENT SESSION")
        }
        let store = try openStore()
        // $TMUX is SOCKET,PID,SESSION: the server's pid names the sessions, and its socket is what
        // `touchgate watch` locks the clients through.
        let hooks = TmuxHookEvents(events: LifecycleEvents(store: store, user: try user, probe: probe),
                                   server: invocationContext.tmux?.serverPID, socket: invocationContext.tmux?.socket,
                                   ask: { TmuxClients.ask(socket: $0) })
        try hooks.handle(hook, client: client, session: tmuxSession)
        return .success
    }

    /// Locks every client of tmux session `id` (`tmux-<server pid>-$<n>`) once a gate found it
    /// locked, so a lock that one client or one pane met (a pane's idle time, a `lock-client`)
    /// covers every terminal that shows the session: `tmux lock-session`, through the socket the
    /// store recorded for it, else `named` (the lock-command's `--tmux-socket`), else the one
    /// `$TMUX` names when it is this session's. A client
    /// that is locked already is left as it is, so this is safe to repeat. The server gets 2 s to
    /// answer; nothing it says reaches the terminal.
    func lockTmuxClients(of id: String, store: Store, socket named: String? = nil) {
        guard let target = TmuxEnvironment.target(ofSession: id),
              let socket = invocationContext.tmuxSockets(for: id, recorded: (try? store.session(id))?.flatMap(\.tmuxSocket), named: named,
                                               searchingTmuxDirectory: false).first, socket.hasPrefix("/") else { return }
        ChildProcess.runQuietly(["tmux", "-S", socket, "lock-session", "-t", target], searchPath: true, until: .after(seconds: 2))
    }

    /// `touchgate shell-init bash|zsh`: the lines for the top of `~/.bashrc` or `~/.zshrc`
    /// (``IntegrationSnippet/shellInit(_:_:code:)``, with `shell/shell-init.sh` embedded at build time).
    func shellInit(_ shell: String) -> ExitCode {
        writeLine(STDOUT_FILENO, IntegrationSnippet.shellInit(shell, bakeSnippet(), code: embeddedShellFiles["shell-init.sh"] ?? ""))
        return .success
    }
}
