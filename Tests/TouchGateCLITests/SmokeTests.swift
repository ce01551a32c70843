import Foundation
import Testing

/// The binary runs end to end against real PAM and a real store.
@Suite struct SmokeTests {
    @Test func enableEnrollAndAuthenticate() throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        let auth = try world.run(["-S", "--json", "auth"], input: "alice-finger\n")
        #expect(auth.status == 0, "\(auth)")
        #expect(auth.json?["outcome"] as? String == "success")
        #expect(world.calls("touchgate-biometric") == 2)
    }
}
