import Foundation
import Testing
import TestSupport

/// SIGKILL at any point of an evaluation — before the PAM call, while the stack works, just after
/// it answers — never loses a failure that was counted, never counts one that could not have
/// happened, and never leaves the store unreadable.
@Suite struct CrashSafetyTests {
    enum Phase: String, CaseIterable {
        /// From 0 to 12 ms after the start: loading, opening the store, the write-ahead admission,
        /// the start of the PAM transaction.
        case beforePAM
        /// While the slow stack sleeps (it counts the call, then sleeps 3 s before it checks).
        case duringPAM
        /// Around the end of the stack's sleep: its verdict, the settlement, the next admission.
        case afterPAM
    }

    final class Victim {
        let world: TestEnvironment
        let phase: Phase
        let delay: TimeInterval
        var process: RunningProcess?
        var started = Date()
        var anchor: Date?
        var killedAt: Date?

        init(world: TestEnvironment, phase: Phase, delay: TimeInterval) {
            self.world = world
            self.phase = phase
            self.delay = delay
        }
    }

    /// Checks what killed evaluations left: the store is whole and readable, and the biometric
    /// failure count covers every call that reached PAM, plus at most one admitted in advance by
    /// each of the `processes` that were killed.
    static func expectConsistent(_ world: TestEnvironment, label: String, earlier: Int = 0, calls: Int, processes: Int = 1,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try world.sql("PRAGMA integrity_check") == "ok", "\(label)", sourceLocation: sourceLocation)
        let status = try world.adversarialStatus()
        let failures = try #require(status["biometricFailures"] as? Int, "\(label): \(status)", sourceLocation: sourceLocation)
        #expect(failures - earlier >= calls, "\(label): \(failures - earlier) counted, \(calls) reached PAM",
                sourceLocation: sourceLocation)
        #expect(failures - earlier <= calls + processes, "\(label): \(failures - earlier) counted, \(calls) reached PAM",
                sourceLocation: sourceLocation)
    }

    @Test func sigkillAtRandomPointsOfAnEvaluation() throws {
        var generator = SeededGenerator(seed: 0x51C_4B11)
        let victims = try (0..<21).map { index -> Victim in
            let world = try TestEnvironment()
            try world.adversarialEnroll()
            try world.adversarialConfig("biometric-service", "touchgate-slow")
            let phase = Phase.allCases[index % 3]
            let delay: TimeInterval = switch phase {
            case .beforePAM: Double.random(in: 0...0.012, using: &generator)
            case .duringPAM: Double.random(in: 0...2.8, using: &generator)
            case .afterPAM: Double.random(in: 2.85...3.5, using: &generator)
            }
            return Victim(world: world, phase: phase, delay: delay)
        }
        func start(_ victim: Victim) throws {
            victim.process = try victim.world.startRaw(["-S", "--json", "auth", "--policy", "biometrics"],
                                                       input: "wrong-finger-1\nwrong-finger-2\nwrong-finger-3\n")
            victim.started = Date()
        }
        // Early kills one at a time, each timed from its own start.
        for victim in victims where victim.phase == .beforePAM {
            try start(victim)
            Thread.sleep(until: victim.started.addingTimeInterval(victim.delay))
            victim.process!.signal(SIGKILL)
            victim.killedAt = Date()
        }
        for victim in victims where victim.phase != .beforePAM {
            try start(victim)
        }
        // One loop kills each of the others at its moment, timed from its first call.
        let deadline = Date().addingTimeInterval(60)
        while victims.contains(where: { $0.killedAt == nil }) {
            #expect(Date() < deadline, "the kill loop ran out of time")
            if Date() >= deadline { break }
            for victim in victims where victim.killedAt == nil {
                if victim.anchor == nil, victim.world.calls("touchgate-slow") >= 1 {
                    victim.anchor = Date()
                }
                guard let from = victim.anchor else { continue }
                if Date() >= from.addingTimeInterval(victim.delay) {
                    victim.process!.signal(SIGKILL)
                    victim.killedAt = Date()
                }
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
        for victim in victims {
            let result = try victim.process!.wait(timeout: 30)
            let label = "\(victim.phase.rawValue) + \(String(format: "%.3f", victim.delay)) s"
            #expect(victim.process!.killedBySignal, "\(label): killed, not finished: \(result)")
            try Self.expectConsistent(victim.world, label: label, calls: victim.world.calls("touchgate-slow"))
            let pending = try victim.world.sql("SELECT count(*) FROM audit WHERE outcome = 'pending'")
            #expect(Int(pending)! <= 1, "\(label): at most the killed attempt is left pending")
        }
        // Every store still works: the right finger succeeds (through the same slow stack) and clears the count.
        let followUps = try victims.map { victim in
            try victim.world.startRaw(["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        }
        for (victim, process) in zip(victims, followUps) {
            let result = try process.wait(timeout: 30)
            #expect(result.status == 0 && result.json?["outcome"] as? String == "success", "\(victim.phase): \(result)")
            #expect(try victim.world.adversarialStatus()["biometricFailures"] as? Int == 0)
        }
    }

    /// Many short-lived processes on the fast stack, killed at random moments while they race for
    /// the write lock: kills land inside transactions and commits as well as between them.
    @Test func sigkillDuringConcurrentAttempts() throws {
        var generator = SeededGenerator(seed: 0xC0FF_EE42)
        let world = try TestEnvironment()
        try world.adversarialEnroll()
        try world.adversarialConfig("max-biometric-failures", "100")
        var killed = 0
        for round in 0..<5 {
            let before = try #require(try world.adversarialStatus()["biometricFailures"] as? Int)
            let callsBefore = world.calls("touchgate-biometric")
            let processes = try (0..<6).map { index -> (RunningProcess, TimeInterval) in
                let process = try world.startRaw(["-S", "auth", "--policy", "biometrics"],
                                                 input: "wrong-\(round)-\(index)-a\nwrong-\(round)-\(index)-b\nwrong-\(round)-\(index)-c\n")
                return (process, Double.random(in: 0...0.12, using: &generator))
            }
            let start = Date()
            for (process, delay) in processes.sorted(by: { $0.1 < $1.1 }) {
                let wait = start.addingTimeInterval(delay).timeIntervalSinceNow
                if wait > 0 { Thread.sleep(forTimeInterval: wait) }
                if process.isRunning { process.signal(SIGKILL) }
            }
            for (process, _) in processes {
                let result = try process.wait(timeout: 30)
                if process.killedBySignal { killed += 1 }
                #expect(result.status == 1 || process.killedBySignal, "\(result)")
            }
            try Self.expectConsistent(world, label: "round \(round)", earlier: before,
                                      calls: world.calls("touchgate-biometric") - callsBefore, processes: processes.count)
        }
        #expect(killed >= 5, "most kills land while the processes run: \(killed) of 30")
        let pending = Int(try world.sql("SELECT count(*) FROM audit WHERE outcome = 'pending'"))!
        let failures = try #require(try world.adversarialStatus()["biometricFailures"] as? Int)
        #expect(failures >= world.calls("touchgate-biometric") - 1, "the enrollment's success is the one call not counted")
        #expect(pending <= 5 * 6, "at most one pending attempt per killed process")
        let auth = try world.runText(["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        #expect(auth.status == 0, "\(auth)")
    }
}
