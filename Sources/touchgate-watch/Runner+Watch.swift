import Glibc
import TouchGate
import TouchGateCLI
import TouchGateWatch

extension Runner {
    /// `touchgate watch` (in `touchgate-watch`): follows logind on the system bus and sends every
    /// session of the user to the background, locked, when the machine is about to sleep or the
    /// screen locks.
    ///
    /// The decisions are ``WatchStateMachine``'s; the bus is ``LogindConnection``; this only
    /// carries out the actions. Exit 0 on SIGTERM / SIGINT / SIGHUP, 74 when the store fails,
    /// 75 when a watcher already runs for the user and the store.
    func watchLoop() throws -> ExitCode {
        let name = try user
        let store = try openStore()
        let lock: WatcherLock
        switch try WatcherLock.acquire(store: store.path, user: name) {
        case .acquired(let acquired): lock = acquired
        case .held(let pid):
            return fail("a watcher already runs for user \(name.escapedForMessage) and store \(store.path.escapedForMessage)"
                        + (pid.map { " (pid \($0))" } ?? ""), .watcherRunning)
        }
        defer { withExtendedLifetime(lock) {} }
        // logind's sessions are by uid: the watcher follows those of the account it runs as, the
        // one whose terminals the store's sessions are. The touchgate user is a name for the store
        // and PAM, which need not be an account, nor the account a host has under that name.
        let uid = geteuid()

        // SIGTERM, SIGINT and SIGHUP wake the poll below through the interrupter's pipe; which
        // one came does not matter, each ends the watcher.
        let signals = Interrupter()
        guard signals.fileDescriptor >= 0 else {
            return fail("cannot make a pipe: \(String(cString: strerror(errno)))", .internalError)
        }
        SignalRelay.install([SIGTERM, SIGINT, SIGHUP], to: signals)
        // A write to a bus that went away must be an error, not a death.
        signal(SIGPIPE, SIG_IGN)

        var machine = WatchStateMachine()
        var connection: LogindConnection?
        var inhibitor: Int32 = -1
        var reconnectAt: Double?
        var inputs: [WatchStateMachine.Input] = [.started]
        // The sessions this watcher sent to the background: the ones a resume or Unlock brings back.
        var backgrounded: [String] = []
        defer { if inhibitor >= 0 { close(inhibitor) } }
        while true {
            while !inputs.isEmpty {
                let input = inputs.removeFirst()
                for action in machine.handle(input) {
                    switch action {
                    case .connect:
                        connection?.close()
                        connection = nil
                        do {
                            let opened = try LogindConnection(uid: uid)
                            connection = opened
                            inputs.append(.connected(logindPresent: opened.logindPresent))
                        } catch {
                            inputs.append(.disconnected(error.description))
                        }
                    case .takeInhibitor:
                        guard let connection else { break }
                        do {
                            if inhibitor >= 0 { close(inhibitor) }
                            inhibitor = -1
                            inhibitor = try connection.inhibitSleep(who: "touchgate", why: "lock terminal sessions before sleep")
                            inputs.append(.inhibitorTaken(true))
                        } catch {
                            inputs.append(.inhibitorTaken(false))
                        }
                    case .releaseInhibitor:
                        if inhibitor >= 0 { close(inhibitor) }
                        inhibitor = -1
                    case .sendAllToBackground:
                        let cause = input == .sessionLock ? "screen-lock" : "suspend"
                        for id in try sendAllToBackground(store: store, user: name, cause: cause)
                        where !backgrounded.contains(id) {
                            backgrounded.append(id)
                        }
                    case .bringAllToForeground:
                        guard !backgrounded.isEmpty else { break }
                        let policy = try relockPolicy(store: store, user: name)
                        _ = try store.bringToForeground(backgrounded, user: name, policy: policy, now: WallClock().now)
                        backgrounded = []
                    case .scheduleReconnect(let delay):
                        connection?.close()
                        connection = nil
                        reconnectAt = monotonicSeconds() + delay
                    case .report(let line):
                        printError(line)
                    case .exit:
                        return .success
                    }
                }
            }
            if let connection {
                let events = connection.pendingEvents()
                if !events.isEmpty {
                    inputs += events.map { event in
                        switch event {
                        case .prepareForSleep(let sleeping): .prepareForSleep(sleeping)
                        case .lock: .sessionLock
                        case .unlock: .sessionUnlock
                        case .logindPresent(let present): .logindPresent(present)
                        case .disconnected: .disconnected("the system bus connection closed")
                        }
                    }
                    continue
                }
            }
            var descriptors = [pollfd(fd: signals.fileDescriptor, events: Int16(POLLIN), revents: 0)]
            if let connection { descriptors.append(pollfd(fd: connection.fileDescriptor, events: Int16(POLLIN), revents: 0)) }
            let timeout = reconnectAt.map { Int32(clamping: Int(max(0, ($0 - monotonicSeconds()) * 1000).rounded(.up))) } ?? -1
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready < 0, errno != EINTR {
                return fail("poll failed: \(String(cString: strerror(errno)))", .internalError)
            }
            if descriptors[0].revents & Int16(POLLIN) != 0 {
                _ = signals.pending
                inputs.append(.terminate)
                continue
            }
            if let due = reconnectAt, monotonicSeconds() >= due {
                reconnectAt = nil
                inputs.append(.reconnectDue)
            }
        }
    }

    /// Every session of `user` to the background and locked in one transaction, then a waiting
    /// evaluation's prompt owner signalled (it ends with appCancel), then every tmux server those
    /// sessions live in told to lock its clients. Returns only when all of that is done, with
    /// the ids of the sessions it sent to the background.
    private func sendAllToBackground(store: Store, user name: String, cause: String) throws -> [String] {
        let done: [BackgroundedSession]
        do {
            let policy = try relockPolicy(store: store, user: name)
            done = try store.sendAllToBackground(user: name, policy: policy, now: WallClock().now, cause: cause)
        } catch {
            // Nothing was marked (one transaction); still cover what can be covered, then fail.
            if let sessions = try? store.sessions(user: name) { lockTmuxServers(uniqueSockets(sessions)) }
            // An owner that cannot read the store covers its terminal all the same (fail closed).
            coverShellOwners(store: store, user: name)
            throw error
        }
        for session in done { cancelPendingPrompt(of: session.record) }
        coverShellOwners(store: store, user: name)
        lockTmuxServers(uniqueSockets(done.map(\.record)))
        return done.filter { $0.events.contains(.didEnterBackground) }.map(\.record.id)
    }

    /// Has every running `touchgate shell` of `user` look at its session now and cover its
    /// terminal, whatever runs in it; returns when each answered, or after ``tmuxLockTimeout``.
    /// The store's list and the channels listening now (``OwnerChannel/running(uid:path:)``):
    /// an owner is reached even when the store cannot be read.
    private func coverShellOwners(store: Store, user name: String) {
        var owners = ((try? store.shellOwners(user: name)) ?? []).map(\.owner)
        for owner in OwnerChannel.running(uid: geteuid()) where !owners.contains(owner) { owners.append(owner) }
        guard !owners.isEmpty else { return }
        let late = OwnerChannel.lock(owners, uid: geteuid(), timeout: Self.tmuxLockTimeout)
        if !late.isEmpty {
            printError("\(late.count) touchgate shell owner(s) did not answer within \(Int(Self.tmuxLockTimeout)) s")
        }
    }

    /// The tmux sockets of `sessions`, then every other socket of this account's tmux servers
    /// in tmux's own directory (``TmuxSocketDirectory``): a server the hooks never recorded (its
    /// sessions began before the snippet was loaded) is locked too. Each once, in order.
    private func uniqueSockets(_ sessions: [SessionRecord]) -> [String] {
        var sockets: [String] = []
        let found = TmuxSocketDirectory.sockets(uid: geteuid(), tmuxTemporaryDirectory: ProcessEnvironment.current["TMUX_TMPDIR"])
        for socket in sessions.compactMap(\.tmuxSocket) + found where !sockets.contains(socket) { sockets.append(socket) }
        return sockets
    }

    /// `tmux -S SOCKET lock-server` for each socket, all at once, and waits for every one.
    private func lockTmuxServers(_ sockets: [String]) {
        var children: [pid_t] = []
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // A server that is gone says so; the watcher has nothing to add.
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        for socket in sockets {
            var argv: [UnsafeMutablePointer<CChar>?] = (["tmux", "-S", socket, "lock-server"] as [String]).map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            var pid: pid_t = 0
            if posix_spawnp(&pid, "tmux", &actions, nil, &argv, environ) == 0 { children.append(pid) }
        }
        // A server that does not answer must not hold the watcher (and the machine's sleep) for
        // ever: after a few seconds the tmux clients still waiting are killed.
        let deadline = monotonicSeconds() + Self.tmuxLockTimeout
        while !children.isEmpty {
            children.removeAll { child in
                var status: Int32 = 0
                return waitpid(child, &status, WNOHANG) == child
            }
            guard !children.isEmpty else { break }
            if monotonicSeconds() >= deadline {
                for child in children {
                    kill(child, SIGKILL)
                    var status: Int32 = 0
                    while waitpid(child, &status, 0) < 0, errno == EINTR {}
                }
                printError("tmux did not answer lock-server within \(Int(Self.tmuxLockTimeout)) s")
                break
            }
            usleep(1_000)
        }
    }

    /// How long the watcher waits for every `tmux lock-server`.
    static let tmuxLockTimeout = 3.0
}

/// Seconds on the monotonic clock (reconnect delays must not follow the wall clock).
func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
