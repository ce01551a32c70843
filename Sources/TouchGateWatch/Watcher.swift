import Glibc
import TouchGate
import TouchGateSystem

/// `touchgate watch` (in `touchgate-watch`): follows logind on the system bus and sends every
/// session of the user to the background, locked, when the machine is about to sleep or the
/// screen locks.
///
/// The decisions are ``WatchStateMachine``'s, what happens to the sessions is ``WatchSessions``'s;
/// the bus is ``LogindConnection``; this only carries out the actions. Exit 0 on SIGTERM /
/// SIGINT / SIGHUP, 74 when the store fails, 75 when a watcher already runs for the user and
/// the store.
package struct Watcher {
    package let commandLine: WatcherCommandLine
    /// `TMUX_TMPDIR`, where this account's tmux servers have their sockets.
    package let tmuxTemporaryDirectory: String?
    /// The one clock of the process: the store reads it.
    package let clock: any Clock

    package init(commandLine: WatcherCommandLine, tmuxTemporaryDirectory: String?, clock: any Clock = WallClock()) {
        self.commandLine = commandLine
        self.tmuxTemporaryDirectory = tmuxTemporaryDirectory
        self.clock = clock
    }

    /// `touchgate-watch`'s whole run: `arguments` parsed, the loop, the exit status.
    package static func main(_ arguments: [String]) -> ExitCode {
        guard let commandLine = WatcherCommandLine.parse(arguments) else {
            Self.printError(WatcherCommandLine.refusal)
            return .usage
        }
        let watcher = Watcher(commandLine: commandLine, tmuxTemporaryDirectory: ProcessEnvironment.current["TMUX_TMPDIR"])
        do {
            return try watcher.run()
        } catch let error as StoreError {
            return watcher.fail(error.description, .store)
        } catch {
            return watcher.fail("internal error: \(error)", .internalError)
        }
    }

    /// Runs until a signal ends it; throws a ``StoreError`` when the store fails.
    package func run() throws -> ExitCode {
        let name = commandLine.user
        let store = try Store(path: FilePath(commandLine.storePath), expectedID: commandLine.storeID, clock: clock)
        let lock: WatcherLock
        switch try WatcherLock.acquire(store: store.path, user: name) {
        case .acquired(let acquired): lock = acquired
        case .held(let pid):
            return fail("a watcher already runs for user \(name.escapedForMessage) and store \(store.path.string.escapedForMessage)"
                        + (pid.map { " (pid \($0))" } ?? ""), .watcherRunning)
        }
        defer { withExtendedLifetime(lock) {} }
        // logind's sessions are by uid: the watcher follows those of the account it runs as, the
        // one whose terminals the store's sessions are. The touchgate user is a name for the store
        // and PAM, which need not be an account, nor the account a host has under that name.
        let uid = geteuid()
        let sessions = WatchSessions(events: LifecycleEvents(store: store, user: name),
                                     effects: TerminalLocks(store: store, user: name, uid: uid,
                                                            tmuxTemporaryDirectory: tmuxTemporaryDirectory,
                                                            report: Self.printError))

        // SIGTERM, SIGINT and SIGHUP wake the poll below through the interrupter's pipe; which
        // one came does not matter, each ends the watcher.
        let signals = Interrupter()
        guard signals.fileDescriptor >= 0 else {
            return fail("cannot make a pipe: \(Errno.current)", .internalError)
        }
        SignalRelay.install([SIGTERM, SIGINT, SIGHUP], to: signals)
        // A write to a bus that went away must be an error, not a death.
        signal(SIGPIPE, SIG_IGN)

        var machine = WatchStateMachine()
        var connection: LogindConnection?
        var inhibitor: Int32 = -1
        var reconnectAt: Double?
        var inputs: [WatcherInput] = [.started]
        defer { if inhibitor >= 0 { close(inhibitor) } }
        func connect() {
            connection?.close()
            connection = nil
            do {
                let opened = try LogindConnection(uid: uid)
                connection = opened
                inputs.append(.connected(logindPresent: opened.logindPresent))
            } catch {
                inputs.append(.disconnected(error.description))
            }
        }
        func releaseInhibitor() {
            if inhibitor >= 0 { close(inhibitor) }
            inhibitor = -1
        }
        func takeInhibitor() {
            guard let connection else { return }
            do {
                releaseInhibitor()
                inhibitor = try connection.inhibitSleep(who: "touchgate", why: "lock terminal sessions before sleep")
                inputs.append(.inhibitorTaken(true))
            } catch {
                inputs.append(.inhibitorTaken(false))
            }
        }
        while true {
            while !inputs.isEmpty {
                // Each input goes to its own method of the machine; its action is carried out here.
                switch inputs.removeFirst() {
                case .started:
                    switch machine.start() {
                    case .connect: connect()
                    case .none: break
                    }
                case .reconnectDue:
                    switch machine.reconnectDue() {
                    case .connect: connect()
                    case .none: break
                    }
                case .connected(let logindPresent):
                    switch machine.connected(logindPresent: logindPresent) {
                    case .takeInhibitor(let report):
                        if let report { Self.printError(report) }
                        takeInhibitor()
                    case .report(let lines):
                        lines.forEach(Self.printError)
                    }
                case .disconnected(let reason):
                    switch machine.disconnected(reason) {
                    case .scheduleReconnect(let delay, let release, let report):
                        if release { releaseInhibitor() }
                        Self.printError(report)
                        connection?.close()
                        connection = nil
                        reconnectAt = monotonicSeconds() + delay
                    case .none: break
                    }
                case .logindPresent(let present):
                    switch machine.logindPresent(present) {
                    case .left(let release, let report):
                        if release { releaseInhibitor() }
                        Self.printError(report)
                    case .back(let report, let take):
                        Self.printError(report)
                        if take { takeInhibitor() }
                    case .none: break
                    }
                case .prepareForSleep(true):
                    switch machine.preparingForSleep() {
                    case .sendAllToBackground(let release):
                        try sessions.sendAllToBackground(cause: .suspend)
                        if release { releaseInhibitor() }
                    }
                case .prepareForSleep(false):
                    switch machine.wokeUp() {
                    case .bringAllToForeground(let take):
                        try sessions.bringAllToForeground()
                        if take { takeInhibitor() }
                    }
                case .sessionLock:
                    switch machine.sessionLocked() {
                    case .sendAllToBackground: try sessions.sendAllToBackground(cause: .screenLock)
                    }
                case .sessionUnlock:
                    switch machine.sessionUnlocked() {
                    case .bringAllToForeground: try sessions.bringAllToForeground()
                    }
                case .inhibitorTaken(true):
                    switch machine.inhibitorTaken() {
                    case .keep: break
                    case .releaseInhibitor: releaseInhibitor()
                    }
                case .inhibitorTaken(false):
                    switch machine.inhibitorRefused() {
                    case .report(let line): Self.printError(line)
                    }
                case .terminate:
                    switch machine.terminate() {
                    case .exit(let release):
                        if release { releaseInhibitor() }
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
            if ready < 0, Errno.current != .interrupted {
                return fail("poll failed: \(Errno.current)", .internalError)
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

    /// Says `message` on standard error (and as `{"error", "exitCode"}` on standard output under
    /// `--json`), as `touchgate` does, and returns `code`.
    func fail(_ message: String, _ code: ExitCode) -> ExitCode {
        Self.printError(message)
        if commandLine.json {
            writeAll(STDOUT_FILENO, JSONValue.object([
                ("error", .string(message)), ("exitCode", .int(Int(code.rawValue))),
            ]).rendered + "\n")
        }
        return code
    }

    /// One line on standard error, prefixed with the program name, through ``TerminalText``.
    static func printError(_ message: String) {
        writeAll(STDERR_FILENO, TerminalText.sanitized("touchgate: " + message) + "\n")
    }
}

/// Seconds on the monotonic clock (reconnect delays must not follow the wall clock).
func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
