import Foundation
import Testing
import TouchGate
import TouchGateArguments
@testable import TouchGateCLI

/// The JSON keys and exit statuses a test may rely on (JSON KEYS AND EXIT CODES in the man page,
/// from `CommandTable`): each command run for real prints only keys the table names, every key
/// it names that is not marked "(when ...)", and exits with a status the table lists. A key added,
/// removed or renamed in the output without the table changing fails here; a table change shows
/// in man/touchgate.1 (DocumentationTests).
@Suite struct JSONContractTests {
    /// Checks one run of `command` (the table's name) against the table.
    static func check(_ command: String, _ result: RunResult, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let spec = CommandTable.table.command(named: command) else {
            Issue.record("no command \(command) in the table", sourceLocation: sourceLocation)
            return
        }
        guard let json = result.json else {
            Issue.record("\(command): no JSON object: \(result)", sourceLocation: sourceLocation)
            return
        }
        var declared = Set(spec.jsonKeyNames)
        if declared.contains("KEY") { declared.formUnion(Configuration.Key.allCases.map(\.rawValue)) }
        let printed = Set(json.keys)
        let undeclared = printed.subtracting(declared).sorted()
        #expect(undeclared.isEmpty, "\(command) prints keys the table does not name: \(undeclared)",
                sourceLocation: sourceLocation)
        let required = Set(spec.jsonKeyNames).subtracting(spec.conditionalJSONKeyNames).subtracting(["KEY"])
        #expect(required.isSubset(of: printed), "\(command) does not print: \(required.subtracting(printed).sorted())",
                sourceLocation: sourceLocation)
        let allowed = CommandTable.table.exitStatuses(of: spec).flatMap { status -> [Int32] in
            let bounds = status.code.split(separator: "-").compactMap { Int32($0) }
            return bounds.count == 2 ? Array(bounds[0]...bounds[1]) : bounds
        }
        #expect(allowed.contains(result.status), "\(command) exited \(result.status), not in \(allowed)",
                sourceLocation: sourceLocation)
    }

    @Test func everyCommandPrintsTheKeysAndStatusesTheTableNames() throws {
        let world = try TestEnvironment()
        let passcode = TestEnvironment.passcode["alice"]!
        let finger = TestEnvironment.finger["alice"]!
        let runs: [(String, [String], String?)] = [
            ("version", ["version"], nil),
            ("status", ["status"], nil),
            ("config get", ["config", "get"], nil),
            ("config set", ["config", "set", "grace-seconds", "0"], nil),
            ("can-evaluate", ["can-evaluate"], nil),
            ("enable", ["-S", "enable"], passcode + "\n"),
            ("enroll", ["-S", "enroll"], passcode + "\n" + finger + "\n"),
            ("auth", ["-S", "auth"], finger + "\n"),
            ("auth", ["-S", "auth", "--policy", "biometrics"], "wrong\nwrong\nwrong\n"),
            ("reset", ["-S", "reset"], passcode + "\n"),
            ("unenroll", ["-S", "unenroll"], passcode + "\n"),
            ("disable", ["-S", "disable"], passcode + "\n"),
            ("event", ["event", "did-finish-launching", "--session", "contract"], nil),
            ("lock", ["lock"], nil),
            ("lock", ["lock", "contract"], nil),
            ("log", ["log"], nil),
            ("test-world create", ["test-world", "create", world.directory.appendingPathComponent("w").path], nil),
        ]
        for (command, arguments, input) in runs {
            Self.check(command, try world.run(["--json"] + arguments, input: input))
        }
        // Throttled: retryAfterSeconds appears, and is a key the table names.
        try world.setConfig("passcode-delays", "0,60")
        _ = try world.run(["-S", "auth"], input: "wrong\n")
        let throttled = try world.run(["-S", "--json", "auth"], input: "wrong\n")
        Self.check("auth", throttled)
        #expect(throttled.json?["retryAfterSeconds"] as? Int == 60, "\(throttled)")
    }
}
