import Foundation
import Testing

/// Hostile answers at a prompt and hostile names on the command line: clear errors, no crash,
/// no unlock, and nothing of what was typed kept anywhere.
@Suite struct BadInputTests {
    /// Every place a secret could end up: the store's files, the audit log and the outputs.
    static func expectNowhere(_ needle: String, _ world: TestEnvironment, outputs: [RunResult],
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (suffix, bytes) in world.rawStoreFiles() {
            #expect(!bytes.containsBytes(needle), "in the store file\(suffix)", sourceLocation: sourceLocation)
        }
        let log = try world.runText(["--json", "log", "--limit", "100000"])
        #expect(log.status == 0, "\(log)", sourceLocation: sourceLocation)
        for output in outputs + [log] {
            #expect(!output.stdout.contains(needle) && !output.stderr.contains(needle), "in an output: \(output)",
                    sourceLocation: sourceLocation)
        }
    }

    static func passcodeFailures(_ world: TestEnvironment) throws -> Int {
        try #require(try world.adversarialStatus()["passcodeFailures"] as? Int)
    }

    @Test(arguments: ["passcode", "biometric"])
    func oneMebibyteAnswerLine(factor: String) throws {
        let world = try TestEnvironment()
        if factor == "biometric" { try world.adversarialEnroll() }
        let marker = "overlong-secret-7d1c:"
        var line = Data(String(repeating: marker, count: (1 << 20) / marker.utf8.count + 1).utf8)
        line.append(0x0A)
        let arguments = factor == "biometric" ? ["-S", "--json", "auth", "--policy", "biometrics"] : ["-S", "--json", "auth"]
        let started = Date()
        let result = try world.runRaw(arguments, input: line)
        #expect(Date().timeIntervalSince(started) < 20, "a long line is read in bounded time")
        // The line is refused (and counted as a failed try), then the input ends: userCancel.
        #expect(result.status == 2, "\(result)")
        #expect(result.json?["outcome"] as? String == "userCancel", "\(result)")
        #expect(result.stderr.contains("touchgate: the answer is longer than 512 bytes"), "\(result)")
        #expect(result.stderr.utf8.count < 4096, "no echo of the line: \(result.stderr.utf8.count) bytes")
        let status = try world.adversarialStatus()
        #expect(status[factor == "biometric" ? "biometricFailures" : "passcodeFailures"] as? Int == 1, "\(status)")
        try Self.expectNowhere(marker, world, outputs: [result])
        // Without a newline at all, up to the end of input: the same.
        let unterminated = try world.runRaw(arguments, input: Data(String(repeating: marker, count: 60_000).utf8))
        #expect(unterminated.status == 1 || unterminated.status == 2, "\(unterminated)")
        #expect(unterminated.stderr.contains("longer than 512 bytes"), "\(unterminated)")
        try Self.expectNowhere(marker, world, outputs: [unterminated])
    }

    @Test func nulByteNeverShortensTheAnswer() throws {
        let world = try TestEnvironment()
        // Cut at the NUL, each of these would be the right passcode: none may succeed.
        for (index, answer) in ["alice-passcode\u{0}tail-3c9e", "alice-passcode\u{0}", "\u{0}alice-passcode"].enumerated() {
            let before = try Self.passcodeFailures(world)
            let result = try world.runRaw(["-S", "--json", "auth"], input: Data((answer + "\n").utf8))
            #expect(result.status == 2, "#\(index): \(result)")
            #expect(result.json?["outcome"] as? String == "userCancel", "#\(index): \(result)")
            #expect(result.stderr.contains("touchgate: the answer contains a NUL byte"), "#\(index): \(result)")
            #expect(try Self.passcodeFailures(world) == before + 1, "a refused answer is a counted try")
            try Self.expectNowhere("tail-3c9e", world, outputs: [result])
        }
        // The same bytes as the passcode without the NUL still work: the store is fine.
        let right = try world.runText(["-S", "--json", "auth"], input: "alice-passcode\n")
        #expect(right.status == 0, "\(right)")
    }

    @Test func invalidUTF8AnswersAndArguments() throws {
        let world = try TestEnvironment()
        try world.adversarialEnroll()
        // Invalid UTF-8 at the prompts: wrong answers, counted, no crash.
        var answer = Data("bad-utf8-51ab".utf8)
        answer.append(contentsOf: [0xFF, 0xFE, 0xC3, 0x28, 0xED, 0xA0, 0x80, 0x0A])
        let biometric = try world.runRaw(["-S", "--json", "auth", "--policy", "biometrics"], input: answer + answer + answer)
        #expect(biometric.status == 1 && biometric.json?["outcome"] as? String == "authenticationFailed", "\(biometric)")
        let passcode = try world.runRaw(["-S", "--json", "auth"], input: Data("\n".utf8) + answer)
        #expect(passcode.status == 2, "fallback, one wrong passcode, end of input: \(passcode)")
        let status = try world.adversarialStatus()
        #expect(status["biometricFailures"] as? Int == 3 && status["passcodeFailures"] as? Int == 1, "\(status)")
        try Self.expectNowhere("bad-utf8-51ab", world, outputs: [biometric, passcode])

        // Invalid UTF-8 in arguments (a shell builds them): a clear outcome, never a crash or a success.
        func withInvalidLast(_ lead: String) -> [String] {
            ["/bin/sh", "-c", "exec \"$0\" \"$@\" \"\(lead)$(printf 'x\\377\\376y')\""]
        }
        let cases: [([String], String)] = [
            (["-S", "--json", "auth", "--policy", "biometrics", "--reason"], ""),
            (["-S", "--json", "auth", "--session"], ""),
            (["-S", "--json", "auth", "--user"], ""),
            (["config", "set", "passcode-service"], ""),
            (["event", "did-finish-launching", "--session"], ""),
            (["status", "--store"], world.directory.path + "/"),
        ]
        for (arguments, lead) in cases {
            let result = try world.runRaw(arguments, input: Data("alice-finger\n".utf8), prefix: withInvalidLast(lead))
            #expect(result.status < 64 || result.status == 65, "no crash: \(arguments): \(result)")
            if arguments.contains("--user") {
                #expect(result.status != 0, "no other user's success: \(result)")
            }
            if arguments.contains("passcode-service") {
                #expect(result.status == 65, "\(result)")
            }
        }
        #expect(try world.adversarialStatus()["passcodeFailures"] as? Int == 1)
    }

    /// User names that must be refused, shown escaped in the test output.
    static let badUserNames = ["bob:x", "alice:", "a\nb", "a\rb", "a\u{1B}[2Jb", "a\u{7F}", "../alice", "a/b", "",
                               String(repeating: "u", count: 257)].map(ShownEscaped.init)

    @Test(arguments: badUserNames)
    func badUserNameIsRefusedBeforeAnyCheck(shown: ShownEscaped) throws {
        let name = shown.value
        let world = try TestEnvironment()
        try world.adversarialEnroll()
        let callsBefore = world.allCalls()
        let entriesBefore = try world.sql("SELECT count(*) FROM audit")
        for (arguments, input) in [(["-S", "--json", "auth"], "alice-finger\nalice-passcode\n"),
                                   (["-S", "--json", "auth", "--policy", "biometrics"], "alice-finger\n"),
                                   (["-S", "enable"], "alice-passcode\n"), (["status"], ""),
                                   (["event", "did-finish-launching", "--session", "s1"], "")] {
            // By option and by environment (where an empty value means "not set").
            for viaOption in name.isEmpty ? [true] : [true, false] {
                let result = viaOption
                    ? try world.runRaw(arguments + ["--user", name], input: Data(input.utf8))
                    : try world.runRaw(arguments, input: Data(input.utf8), environment: ["TOUCHGATE_USER": name])
                #expect(result.status == 65, "\(arguments) user \(name.debugDescription): \(result)")
                let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
                #expect(lines.count == 1, "one line: \(result.stderr.debugDescription)")
                #expect(FuzzTests.isOnePrintableLine(String(lines.first ?? "")), "\(result.stderr.debugDescription)")
                #expect(!result.stderr.contains("Password"), "nothing was asked")
            }
        }
        #expect(world.allCalls() == callsBefore, "no PAM call for a bad name")
        #expect(try world.sql("SELECT count(*) FROM audit") == entriesBefore, "nothing recorded for a bad name")
        #expect(try world.sql("SELECT count(*) FROM users") == "1", "no user row for a bad name")
    }

    @Test func badSessionIdIsRefused() throws {
        let world = try TestEnvironment()
        #expect(try world.runText(["status"]).status == 0)
        for session in ["a\nb", "a\u{1}b", "\u{1B}]0;title\u{7}", String(repeating: "s", count: 257)] {
            for arguments in [["event", "did-finish-launching", "--session", session], ["gate", "--session", session]] {
                let result = try world.runRaw(arguments, environment: ["TOUCHGATE_SESSION": ""])
                #expect(result.status == 65, "\(result)")
                #expect(result.stderr.hasPrefix("touchgate: invalid session id"), "\(result)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr.debugDescription)")
            }
        }
        #expect(try world.sql("SELECT count(*) FROM sessions") == "0")
    }
}
