import Glibc
import Testing
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGateStore
@testable import TouchGateSystem

/// ``PromptHold``, the one claim on a session's prompt, against a real store and real processes.
@Suite(.removesItsFiles) struct PromptHoldTests {
    @Test func aClaimIsHeldUntilReleasedAndNamesThisProcess() throws {
        let store = try Store(path: FilePath(temporaryStorePath()))
        let hold = PromptHold(store: store, session: "s", user: "alice", kind: .auth)
        #expect(try hold.claim() == .claimed)
        #expect(hold.held)
        #expect(try store.session("s")?.promptOwner == ProcessIdentity.current)
        #expect(try store.session("s")?.promptKind == "auth")
        hold.release()
        #expect(!hold.held)
        #expect(try store.session("s")?.promptOwner == nil)
    }

    @Test func aLiveOwnerKeepsItsClaimUnlessTakenOverAndThenItsPromptEnds() throws {
        let store = try Store(path: FilePath(temporaryStorePath()))
        let child = try SleepingChild()
        #expect(try store.claimPrompt(session: "s", user: "alice", pid: child.pid, kind: PromptClaimKind.tmuxPane.rawValue) == nil)
        let hold = PromptHold(store: store, session: "s", user: "alice", kind: .gate)
        guard case .heldBy(let owner) = try hold.claim() else {
            Issue.record("the live owner lost its claim")
            return
        }
        #expect(owner.pid == child.pid)
        #expect(!hold.held)
        // Releasing a claim this process does not hold leaves the owner's.
        hold.release()
        #expect(try store.session("s")?.promptOwner?.pid == child.pid)
        #expect(child.endingSignal(within: 0.1) == nil)
        var seen: PromptClaimKind?
        #expect(try hold.claim { _, kind in seen = kind; return kind == .tmuxPane } == .tookOver(owner))
        #expect(seen == .tmuxPane)
        #expect(hold.held)
        #expect(child.endingSignal() == SIGUSR1)
    }
}
