import Foundation
import Testing

/// What the CLI says when a command cannot go on, tried as a new user would: a typo, no terminal,
/// no fingerprint reader. Each message says why and what to do, on one line.
@Suite struct GuidanceTests {
    @Test(arguments: [("statsu", "status"), ("stauts", "status"), ("enrol", "enroll"), ("auht", "auth"), ("gaet", "gate")])
    func anUnknownCommandSuggestsTheNearestOne(typed: String, meant: String) throws {
        let world = try TestEnvironment()
        let result = try world.run([typed])
        #expect(result.status == 64, "\(result)")
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first == "touchgate: unknown command '\(typed)'; did you mean '\(meant)'? (see touchgate --help)", "\(result)")
    }

    @Test func aWordFarFromEveryCommandSuggestsNothing() throws {
        let result = try TestEnvironment().run(["frobnicate"])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.hasPrefix("touchgate: unknown command 'frobnicate' (see touchgate --help)\n"), "\(result)")
    }

    /// The test's children have no controlling terminal, so a prompt cannot be shown.
    @Test func authWithoutATerminalPointsAtDashS() throws {
        let world = try TestEnvironment()
        let result = try world.run(["auth"], input: "")
        #expect(result.status == 11, "\(result)")
        #expect(result.stderr == "touchgate: Authentication needs interaction, which is not allowed here: there is no "
                + "terminal to ask on; pass -S to read the answers from standard input (notInteractive)\n", "\(result)")
        // With -S it asks on standard input instead.
        let scripted = try world.run(["-S", "auth"], input: "alice-passcode\n")
        #expect(scripted.status == 0, "\(scripted)")
    }
}
