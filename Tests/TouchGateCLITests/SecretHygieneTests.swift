import Foundation
import Testing
import TouchGate

/// After every kind of evaluation with known secrets — right and wrong, passcode and biometric,
/// enrollment, toggles, settings, the gate, refused answers — no secret is in the store file, its
/// write-ahead log, the audit log or any output.
@Suite struct SecretHygieneTests {
    @Test func noSecretAnywhereAfterEvaluations() throws {
        let world = try TestEnvironment()
        // Created first, then held open, so the -wal file keeps every frame the runs write.
        #expect(try world.runText(["status"]).status == 0)
        let keeper = try Store(path: FilePath(world.storePath))

        let wrongPasscode = "wrong-passcode-5e0b"
        let wrongFinger = "wrong-finger-a18f"
        let nulSecret = "nul-secret-91c2"
        let overlong = "overlong-secret-4d77"
        let secrets = ["alice-passcode", "alice-finger", "bob-passcode", "bob-finger", wrongPasscode, wrongFinger,
                       nulSecret, overlong]
        var outputs: [RunResult] = []
        func run(_ arguments: [String], _ input: String, expect status: Int32) throws {
            let result = try world.runRaw(arguments, input: Data(input.utf8))
            #expect(result.status == status, "\(arguments): \(result)")
            outputs.append(result)
        }
        try run(["-S", "enroll"], "\(wrongPasscode)\nalice-passcode\n\(wrongFinger)\nalice-finger\n", expect: 0)
        try run(["-S", "--json", "enable"], "\(wrongFinger)\nalice-finger\n", expect: 0)
        try run(["-S", "--json", "auth", "--policy", "biometrics"], "\(wrongFinger)-1\n\(wrongFinger)-2\nalice-finger\n", expect: 0)
        try run(["-S", "--json", "auth"], "\n\(wrongPasscode)\nalice-passcode\n", expect: 0)
        try run(["-S", "--json", "auth"], "\(wrongFinger)\n\(wrongFinger)\n\(wrongFinger)\n\(wrongPasscode)\n\(wrongPasscode)\n\(wrongPasscode)\n",
                expect: 1)
        try run(["-S", "--json", "reset"], "", expect: 0)
        try run(["-S", "--json", "auth", "--policy", "biometrics"], "\(nulSecret)\u{0}x\n\(nulSecret)\n", expect: 2)
        try run(["-S", "--json", "auth"], "\n\(nulSecret)\u{0}y\n\(nulSecret)\n", expect: 2)
        try run(["-S", "--json", "auth", "--policy", "biometrics"],
                String(repeating: overlong, count: 3000) + "\n" + String(repeating: overlong, count: 50_000), expect: 2)
        try run(["-S", "--json", "config", "set", "reuse-seconds", "60"], "alice-finger\n", expect: 0)
        try run(["-S", "--json", "config", "set", "reuse-seconds", "0"], "", expect: 0)
        try run(["event", "did-finish-launching", "--session", "s1"], "", expect: 0)
        try run(["-S", "gate", "--session", "s1"], "\(wrongFinger)\n\n\(wrongPasscode)\nalice-passcode\n", expect: 0)
        try run(["-S", "--json", "auth", "--user", "bob"], "bob-finger\nbob-passcode\n", expect: 0)
        try run(["-S", "unenroll"], "\(wrongPasscode)\nalice-passcode\n", expect: 0)
        try run(["-S", "--json", "disable"], "alice-passcode\n", expect: 0)
        try run(["--json", "status"], "", expect: 0)
        try run(["--json", "log", "--limit", "100000"], "", expect: 0)
        try run(["log", "--limit", "100000"], "", expect: 0)
        #expect((outputs.last?.stdout.split(separator: "\n").count ?? 0) > 20, "the audit log has the evaluations")

        let whileOpen = world.rawStoreFiles()
        #expect(whileOpen["-wal"]!.count > 0, "the write-ahead log was kept for inspection")
        withExtendedLifetime(keeper) {}
        // The last connection closes after this: the log is checkpointed into the file.
        let afterClose = world.rawStoreFiles()
        for secret in secrets {
            for (suffix, bytes) in whileOpen.merging(afterClose.map { ("closed" + $0.key, $0.value) }, uniquingKeysWith: { $0 + $1 }) {
                #expect(!bytes.containsBytes(secret), "\(secret) in the store file\(suffix)")
            }
            for output in outputs {
                #expect(!output.stdout.contains(secret) && !output.stderr.contains(secret), "\(secret) in an output: \(output)")
            }
        }
    }
}
