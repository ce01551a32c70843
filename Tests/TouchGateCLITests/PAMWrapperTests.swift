import Foundation
import Testing

/// The `pam_start()` path, redirected by pam_wrapper (`LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1
/// PAM_WRAPPER_SERVICE_DIR=…`), as a system install would reach `/etc/pam.d`.
///
/// Serialized, and the only suite that uses pam_wrapper: its per-process copies of the stacks
/// race when wrapped processes start together (see ``TestEnvironment/init(pamWrapper:)``).
@Suite(.serialized) struct PAMWrapperTests {
    @Test func enableEnrollAndAuthenticateThroughPamStart() throws {
        let world = try TestEnvironment(pamWrapper: true)
        try world.enableAndEnroll()
        let auth = try world.run(["-S", "--json", "auth"], input: "alice-finger\n")
        #expect(auth.status == 0, "\(auth)")
        #expect(auth.json?["outcome"] as? String == "success")
        #expect(world.calls("touchgate-biometric") == 2)
        #expect(world.calls("touchgate") == 2)
    }

    @Test func wrongAnswersCountAndLockOutThroughPamStart() throws {
        let world = try TestEnvironment(pamWrapper: true)
        try world.enableAndEnroll()
        let failed = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "a\nb\nc\n")
        #expect(failed.status == 1, "\(failed)")
        let more = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "d\ne\nf\n")
        #expect(more.json?["outcome"] as? String == "biometryLockout", "\(more)")
        #expect(world.calls("touchgate-biometric") == 1 + 5)
        let passcode = try world.run(["-S", "--json", "auth"], input: "alice-passcode\n")
        #expect(passcode.json?["outcome"] as? String == "success", "\(passcode)")
    }

    @Test func aMissingServiceFileIsNotPamsOtherStack() throws {
        let world = try TestEnvironment(pamWrapper: true)
        try world.enableAndEnroll()
        try FileManager.default.removeItem(at: world.pamDirectory.appendingPathComponent("touchgate-biometric"))
        let result = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        #expect(result.json?["outcome"] as? String == "biometryNotAvailable", "\(result)")
        #expect(result.status == 6)
    }
}
