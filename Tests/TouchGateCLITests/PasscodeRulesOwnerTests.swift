import Foundation
import Testing

/// `touchgate shell`'s owner under a rule: its gate's cover says why, as iOS's lock screen does,
/// and asks for the passcode without trying the finger.
@Suite struct PasscodeRulesOwnerTests {
    @Test func afterLockdownTheOwnersGateSaysWhyAndAsksForThePasscode() throws {
        let world = try ShellOwnerTests.lockedWorld()
        let lockdown = try world.run(["lockdown"])
        #expect(lockdown.status == 0, "\(lockdown)")
        let calls = world.calls("touchgate-biometric")
        let owner = try OwnerHarness(world: world, shell: "bash")
        defer { owner.shutdown() }
        try owner.start()
        let screen = try owner.waitForScreen(containing: "Your passcode is required after lockdown.")
        #expect(!screen.contains("Biometric attempts left"), "\(screen)")
        let prompt = try owner.waitForScreen(containing: "(passcode for alice")
        #expect(prompt.contains("touchgate: Your passcode is required after lockdown."), "\(prompt)")
        try owner.typeLine(TestEnvironment.passcode["alice"]!)
        try gateEventually("the gate gone", timeout: 15) { try !owner.screen().contains(ShellOwnerTests.gateTitle) }
        #expect(world.calls("touchgate-biometric") == calls, "the finger was never tried")
        #expect(try world.statusJSON()["passcodeRequired"] is NSNull)
    }
}
