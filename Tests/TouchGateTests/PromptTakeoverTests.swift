import Testing
@testable import TouchGate
@testable import TouchGateSystem

/// ``PromptTakeover``: which live owner of a session's prompt a gate takes the prompt from
/// without waiting (the user cannot reach it), with the processes' terminals given.
@Suite struct PromptTakeoverTests {
    /// Processes whose controlling terminals are as given (`nil`: cannot be read); this one is pid 1.
    struct Terminals: ProcessProbe {
        var onTerminal: [Int32: Bool?]
        var current: ProcessIdentity? { ProcessIdentity(pid: 1, startTime: 1) }
        var currentPID: Int32 { 1 }
        func hasControllingTerminal(_ pid: Int32) -> Bool? { onTerminal[pid] ?? nil }
        func isAlive(_ process: ProcessIdentity) -> Bool { true }
        func cancelPrompt(of process: ProcessIdentity) {}
    }

    let owner = ProcessIdentity(pid: 2, startTime: 2)

    @Test func aPaneGateIsTakenOverByAnyOtherGate() {
        let both = Terminals(onTerminal: [1: true, 2: true])
        #expect(PromptTakeover.takesOver(from: owner, kind: .tmuxPane, as: .gate, processes: both))
        #expect(!PromptTakeover.takesOver(from: owner, kind: .tmuxPane, as: .tmuxPane, processes: both))
        #expect(!PromptTakeover.takesOver(from: owner, kind: .gate, as: .gate, processes: both))
    }

    @Test func anOwnerOnNoTerminalIsTakenOverByAGateOnOne() {
        #expect(PromptTakeover.takesOver(from: owner, kind: .gate, as: .gate,
                                         processes: Terminals(onTerminal: [1: true, 2: false])))
        // Neither on a terminal: the user types at neither, so the gate waits.
        #expect(!PromptTakeover.takesOver(from: owner, kind: .gate, as: .gate,
                                          processes: Terminals(onTerminal: [1: false, 2: false])))
    }

    /// What cannot be read is taken the safe way: the owner as on a terminal (waited for), this
    /// gate as on none (it takes nothing over).
    @Test func whatCannotBeReadIsWaitedFor() {
        #expect(!PromptTakeover.takesOver(from: owner, kind: .gate, as: .gate,
                                          processes: Terminals(onTerminal: [1: true, 2: nil])))
        #expect(!PromptTakeover.takesOver(from: owner, kind: .gate, as: .gate,
                                          processes: Terminals(onTerminal: [1: nil, 2: false])))
    }
}
