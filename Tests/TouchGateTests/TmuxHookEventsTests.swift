import Testing
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGateStore

/// ``TmuxHookEvents`` against a real store: what each hook does to the sessions a client leaves
/// and enters, in the orders tmux fires them.
@Suite(.removesItsFiles) struct TmuxHookEventsTests {
    static func hooks(lockOn: Bool, grace: Int = 0) throws -> (TmuxHookEvents, TestClock) {
        let clock = TestClock()
        let store = try Store(path: FilePath(temporaryStorePath()), clock: clock)
        _ = try store.set(.graceSeconds, to: String(grace), user: "alice")
        if lockOn { try store.setEnabled(true, user: "alice", session: nil) }
        return (TmuxHookEvents(events: LifecycleEvents(store: store, user: "alice"), server: "42", socket: "/tmp/tmux-1/default"), clock)
    }

    static func row(_ hooks: TmuxHookEvents, _ tmuxID: String) throws -> (LifecycleState, Bool)? {
        try hooks.events.store.session(hooks.sessionID(tmuxID)).map { ($0.lifecycle.state, $0.lifecycle.locked) }
    }

    @Test func aCreatedSessionIsLaunchedLockedWhileTheLockIsOnWithItsSocketAndClient() throws {
        let (hooks, _) = try Self.hooks(lockOn: true)
        try hooks.handle(.sessionCreated, client: "/dev/pts/3", session: "$1")
        #expect(try Self.row(hooks, "$1")! == (.active, true))
        #expect(try hooks.events.store.session("tmux-42-$1")?.tmuxSocket == "/tmp/tmux-1/default")
        #expect(try hooks.events.store.detachClient("/dev/pts/3") == "tmux-42-$1")
    }

    /// The records run in the background and can come late: each looks at what the server says now.
    static func hooks(present: TmuxClients) throws -> TmuxHookEvents {
        let store = try Store(path: FilePath(temporaryStorePath()), clock: TestClock())
        return TmuxHookEvents(events: LifecycleEvents(store: store, user: "alice"), server: "42",
                              socket: "/tmp/tmux-1/default", ask: { $0 == "/tmp/tmux-1/default" ? present : nil })
    }

    @Test func aDetachThatComesAfterTheClientCameBackLeavesItsAttachAlone() throws {
        // c1 was replaced by the gate and let in again under the same name; its attach was
        // recorded before the replaced client's detach.
        let back = try Self.hooks(present: TmuxClients(sessions: ["c1": "$1"]))
        try back.handle(.sessionCreated, client: "c1", session: "$1")
        try back.handle(.clientDetached, client: "c1", session: nil)
        #expect(try Self.row(back, "$1")! == (.active, false))
        #expect(try back.events.store.tmuxClientSession("c1") == "tmux-42-$1")
        // Gone for good: the detach applies.
        let gone = try Self.hooks(present: TmuxClients(sessions: [:]))
        try gone.handle(.sessionCreated, client: "", session: "$1")
        try gone.events.store.attachClient("c1", to: "tmux-42-$1")
        try gone.handle(.clientDetached, client: "c1", session: nil)
        #expect(try Self.row(gone, "$1")! == (.background, false))
        #expect(try gone.events.store.tmuxClientSession("c1") == nil)
    }

    @Test func anAttachTheClientNoLongerShowsIsNotRecorded() throws {
        let hooks = try Self.hooks(present: TmuxClients(sessions: ["c1": "$2"]))
        try hooks.handle(.clientSessionChanged, client: "c1", session: "$1")
        #expect(try hooks.events.store.tmuxClientSession("c1") == nil)
        try hooks.handle(.clientSessionChanged, client: "c1", session: "$2")
        #expect(try hooks.events.store.tmuxClientSession("c1") == "tmux-42-$2")
    }

    @Test func theServersListingNamesEachClientsSession() {
        let clients = TmuxClients(listing: "$1 /dev/pts/3\n$12 /dev/pts/4\n /dev/pts/5\n\n")
        #expect(clients.sessions == ["/dev/pts/3": "$1", "/dev/pts/4": "$12"])
    }

    @Test func aSocketThatIsNotAbsoluteIsNotRecorded() throws {
        let store = try Store(path: FilePath(temporaryStorePath()))
        let hooks = TmuxHookEvents(events: LifecycleEvents(store: store, user: "alice"), server: "42", socket: "default")
        try hooks.handle(.sessionCreated, client: "", session: "$1")
        #expect(try store.session("tmux-42-$1")?.tmuxSocket == nil)
    }

    @Test func aDetachStraightFromActiveSendsTheSessionAway() throws {
        let (hooks, _) = try Self.hooks(lockOn: false)
        try hooks.handle(.sessionCreated, client: "c1", session: "$1")
        try hooks.handle(.clientDetached, client: "c1", session: nil)
        #expect(try Self.row(hooks, "$1")! == (.background, false))
        // Detached again (the client is no longer known): nothing happens.
        try hooks.handle(.clientDetached, client: "c1", session: nil)
        #expect(try Self.row(hooks, "$1")! == (.background, false))
    }

    @Test func switchingSendsTheSessionLeftAwayAndTheOtherReturnsByTheGrace() throws {
        let (hooks, clock) = try Self.hooks(lockOn: false, grace: 60)
        try hooks.handle(.sessionCreated, client: "c1", session: "$1")
        try hooks.handle(.sessionCreated, client: "", session: "$2")
        // The lock goes on while both are unlocked.
        try hooks.events.store.setEnabled(true, user: "alice", session: nil)
        try hooks.handle(.clientSessionChanged, client: "c1", session: "$2")
        #expect(try Self.row(hooks, "$1")! == (.background, false))
        clock.advance(by: 61)
        try hooks.handle(.clientSessionChanged, client: "c1", session: "$1")
        // Back after more than the grace: locked; the session it left is away now.
        #expect(try Self.row(hooks, "$1")! == (.inactive, true))
        #expect(try Self.row(hooks, "$2")!.0 == .background)
    }

    @Test func aDetachWithinTheGraceComesBackUnlockedAndOnePastItLocked() throws {
        let (hooks, clock) = try Self.hooks(lockOn: false, grace: 1)
        try hooks.handle(.sessionCreated, client: "c1", session: "$1")
        try hooks.events.store.setEnabled(true, user: "alice", session: nil)
        try hooks.handle(.clientDetached, client: "c1", session: nil)
        // Detaching within the grace does not lock by itself, nor does coming back in time.
        #expect(try Self.row(hooks, "$1")! == (.background, false))
        clock.advance(by: 0.9)
        try hooks.handle(.clientSessionChanged, client: "c2", session: "$1")
        #expect(try Self.row(hooks, "$1")! == (.inactive, false))
        try hooks.handle(.clientFocusIn, client: "c2", session: "$1")
        try hooks.handle(.clientDetached, client: "c2", session: nil)
        clock.advance(by: 1)
        try hooks.handle(.clientSessionChanged, client: "c3", session: "$1")
        #expect(try Self.row(hooks, "$1")! == (.inactive, true))
    }

    @Test func aSessionTheHooksNeverSawIsLaunchedWhenAClientGetsIt() throws {
        let (hooks, _) = try Self.hooks(lockOn: true)
        try hooks.handle(.clientSessionChanged, client: "c1", session: "$7")
        #expect(try Self.row(hooks, "$7")! == (.active, true))
    }

    @Test func focusOutAndInMoveBetweenActiveAndInactiveOnly() throws {
        let (hooks, _) = try Self.hooks(lockOn: false)
        try hooks.handle(.sessionCreated, client: "c1", session: "$1")
        try hooks.handle(.clientFocusOut, client: "c1", session: "$1")
        #expect(try Self.row(hooks, "$1")! == (.inactive, false))
        // Twice: the second is not allowed and skipped, not an error.
        try hooks.handle(.clientFocusOut, client: "c1", session: "$1")
        try hooks.handle(.clientFocusIn, client: "c1", session: "$1")
        #expect(try Self.row(hooks, "$1")! == (.active, false))
    }
}
