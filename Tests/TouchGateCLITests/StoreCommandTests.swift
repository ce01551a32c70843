import Foundation
import Testing

/// Small contracts of the store commands (issue 12, item 18): `--json` usage errors print their
/// JSON object, and `enable` / `disable` of what is already so is a success without a prompt.
@Suite struct StoreCommandTests {
    @Test(arguments: [
        (["--json", "stat"], 64), (["--json", "status", "--lock"], 64), (["--json", "config", "get", "a", "b"], 64),
        (["status", "--json", "--no-such-option"], 64), (["--json", "log", "--limit", "0"], 65),
        (["--json", "event", "did-nothing", "--session", "s"], 65), (["--json", "--user", "", "status"], 65),
    ])
    func jsonUsageErrorsPrintTheirJSONObject(arguments: [String], exit: Int) throws {
        let world = try TestEnvironment()
        let result = try world.run(arguments)
        #expect(result.status == Int32(exit), "\(result)")
        // A usage error (64) also prints the command's usage line after its message.
        #expect(result.stderrLines.count == (exit == 64 ? 2 : 1), "\(result)")
        #expect(result.json?["exitCode"] as? Int == exit, "\(result)")
        let message = try #require(result.json?["error"] as? String, "\(result)")
        #expect(result.stderrLines.first.map(String.init) == "touchgate: \(message)", "\(result)")
        // Without --json, standard output stays empty; after `--`, "--json" is an argument.
        let plain = try world.run(arguments.filter { $0 != "--json" })
        #expect(plain.stdout.isEmpty, "\(plain)")
    }

    @Test func enablingWhatIsOnOrDisablingWhatIsOffAsksNothing() throws {
        let world = try TestEnvironment()
        let off = try world.runWithoutTerminal(["--json", "disable"])
        CoreExpect.outcome(off, "success", policy: "device-owner")
        #expect(off.json?["enabled"] as? Bool == false)
        try world.enableAndEnroll()
        let calls = world.calls("touchgate") + world.calls("touchgate-biometric")
        let on = try world.runWithoutTerminal(["--json", "enable"])
        CoreExpect.outcome(on, "success", policy: "device-owner")
        #expect(on.json?["enabled"] as? Bool == true)
        let text = try world.run(["enable"], input: "")
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout == "touchgate lock for alice: on (already)\n", "\(text)")
        #expect(!text.stderr.contains("Password"), "\(text)")
        #expect(world.calls("touchgate") + world.calls("touchgate-biometric") == calls, "no PAM call")
        // Turning it off still needs the secret.
        let disable = try world.runWithoutTerminal(["--json", "disable"])
        CoreExpect.outcome(disable, "notInteractive", policy: "device-owner")
        #expect(try world.statusJSON()["enabled"] as? Bool == true)
    }
}
