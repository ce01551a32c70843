import Foundation
import Testing

/// libpam is opened at the first PAM transaction (`TouchGatePAM/PAMLibrary.swift`), not by the
/// loader: the executables do not name it, the runs that use no PAM start without it, and a
/// libpam that cannot be opened fails the transaction closed, before any module or count.
@Suite struct PAMLibraryTests {
    /// `touchgate ARGUMENTS` in a private mount namespace where libpam's file is empty (/dev/null
    /// bound over it), so opening `libpam.so.0` fails.
    private func withoutLibpam(_ world: TestEnvironment, _ arguments: [String], input: String? = nil) throws -> RunResult {
        let library = URL(fileURLWithPath: "/lib/x86_64-linux-gnu/libpam.so.0").resolvingSymlinksInPath().path
        let script = "mount --bind /dev/null \"$1\" && shift && exec \"$@\""
        return try TestEnvironment.execute(
            "/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh", library, TestEnvironment.binary] + arguments,
            input: input, environment: world.environment)
    }

    @Test(arguments: ["touchgate", "touchgate-watch", "touchgate-demo", "touchgate-pam-helper"])
    func noExecutableNamesLibpam(name: String) throws {
        let file = URL(fileURLWithPath: TestEnvironment.binary).deletingLastPathComponent().appendingPathComponent(name).path
        let needed = try Toolchain.neededLibraries(file)
        #expect(needed.contains("libc.so.6"), "the check reads nothing: \(needed)")
        #expect(!needed.contains { $0.hasPrefix("libpam") }, "\(name): \(needed)")
    }

    @Test func theGateRunsWithoutLibpamAndAnAuthenticationFailsClosed() throws {
        let world = try TestEnvironment()
        CoreExpect.outcome(try world.run(["-S", "--json", "auth"], input: "alice-passcode\n"), "success", policy: "device-owner")
        let calls = world.calls("touchgate")
        #expect(calls >= 1, "the PAM stack counts no call: the check below reads nothing")
        let attemptsLeft = try world.statusJSON()["attemptsLeft"] as? [String: Any]
        #expect(attemptsLeft?["passcode"] is Int, "\(String(describing: attemptsLeft))")

        // The runs that use no PAM do not need it.
        let version = try withoutLibpam(world, ["--version"])
        #expect(version.status == 0, "\(version)")
        let status = try withoutLibpam(world, ["--json", "status"])
        #expect(status.status == 0, "\(status)")

        // The right passcode, and no libpam to check it with: refused, no module ran.
        let refused = try withoutLibpam(world, ["-S", "--json", "auth"], input: "alice-passcode\n")
        #expect(refused.status != 0, "\(refused)")
        #expect(refused.jsonOutcome != "success", "\(refused)")
        // The error names what happened, not "no passcode is set".
        #expect(refused.stdout.contains("PAM could not start the '") && refused.stdout.contains("' stack (libpam.so.0 could not be loaded"),
                "\(refused)")
        #expect(world.calls("touchgate") == calls)
        // Nothing that reached no PAM stack is counted as a guess.
        let after = try world.statusJSON()["attemptsLeft"] as? [String: Any]
        #expect(after?["passcode"] as? Int == attemptsLeft?["passcode"] as? Int, "\(String(describing: after))")
    }
}
