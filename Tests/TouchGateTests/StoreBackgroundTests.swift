import Testing
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGateStore

/// ``Store/sendAllToBackground(user:policy:now:)`` and ``Store/bringToForeground(_:user:policy:now:)``:
/// what `touchgate watch` writes on a suspend, a screen lock and a resume.
@Suite(.removesItsFiles) struct StoreBackgroundTests {
    static let on = SessionLifecycle.Policy(enabled: true, graceSeconds: 3600)

    /// A store with sessions of alice in each state (`a-active`, `b-inactive`, `c-background`,
    /// `d-ended`) and one of bob, none locked.
    static func store() throws -> Store {
        let store = try Store(path: FilePath(temporaryStorePath()))
        let off = SessionLifecycle.Policy(enabled: false, graceSeconds: 0)
        let paths: [(String, String, [LifecycleEvent])] = [
            ("a-active", "alice", [.didFinishLaunching, .didBecomeActive]),
            ("b-inactive", "alice", [.didFinishLaunching]),
            ("c-background", "alice", [.didFinishLaunching, .didEnterBackground]),
            ("d-ended", "alice", [.didFinishLaunching, .willTerminate]),
            ("e-bob", "bob", [.didFinishLaunching, .didBecomeActive]),
        ]
        for (id, user, events) in paths {
            try store.updateSession(id, user: user) { record in
                for event in events { _ = record.lifecycle.handle(event, now: 100, policy: off) }
            }
        }
        return store
    }

    static func row(_ store: Store, _ id: String) throws -> (LifecycleState, Bool)? {
        try store.session(id).map { ($0.lifecycle.state, $0.lifecycle.locked) }
    }

    @Test func everySessionOfTheUserGoesToTheBackgroundLockedWhateverTheGrace() throws {
        let store = try Self.store()
        let done = try store.sendAllToBackground(user: "alice", policy: Self.on, now: 200)
        #expect(done.map(\.record.id) == ["a-active", "b-inactive", "c-background"])
        #expect(done.map(\.events) == [[.willResignActive, .didEnterBackground], [.didEnterBackground], []])
        for id in ["a-active", "b-inactive", "c-background"] {
            #expect(try Self.row(store, id)! == (.background, true), "\(id)")
        }
        // The ended session (pruned or left as it was) is not brought back, and bob is not touched.
        #expect(try Self.row(store, "d-ended").map { $0.0 } ?? .notRunning == .notRunning)
        #expect(try Self.row(store, "e-bob")! == (.active, false))
        #expect(try store.session("c-background")?.lifecycle.backgroundSince == 100)
    }

    @Test func withTheLockOffNothingIsLockedButTheStatesMove() throws {
        let store = try Self.store()
        _ = try store.sendAllToBackground(user: "alice", policy: .init(enabled: false, graceSeconds: 0), now: 200)
        #expect(try Self.row(store, "a-active")! == (.background, false))
    }

    @Test func theForegroundNeverUnlocksAndTouchesOnlyTheNamedSessions() throws {
        let store = try Self.store()
        _ = try store.sendAllToBackground(user: "alice", policy: Self.on, now: 200)
        let back = try store.bringToForeground(["a-active", "b-inactive", "e-bob", "nope"], user: "alice", policy: Self.on, now: 201)
        #expect(back.map(\.id) == ["a-active", "b-inactive"])
        #expect(try Self.row(store, "a-active")! == (.inactive, true))
        #expect(try Self.row(store, "c-background")! == (.background, true))
        #expect(try Self.row(store, "e-bob")! == (.active, false))
    }
}
