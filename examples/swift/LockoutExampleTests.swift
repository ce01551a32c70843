// The 6th wrong passcode is a lockout: a Swift Testing test of touchgate's counting against real
// PAM, through the library (docs/testing.md). In this repository it is the test target
// `ExampleTests`; in a package of yours, depend on touchgate and use the products TouchGate and
// TouchGateTesting.
import Testing
import TouchGate
import TouchGateTesting

@Suite struct LockoutExampleTests {
    @Test func theSixthWrongTryIsALockout() throws {
        let world = try PAMWorld()                 // pam_matrix stacks for alice, removed at the end
        let clock = SettableClock()
        let store = try world.openStore(clock: clock)
        try store.set(.passcodeTriesPerEvaluation, to: "1", user: "alice")

        for n in 1...5 {
            let prompts = ScriptedPromptSource(["wrong-\(n)"])
            do {
                try world.context(store: store, prompts: prompts).evaluateSynchronously(.deviceOwner, reason: "test")
                Issue.record("wrong-\(n) was accepted")
            } catch {                              // typed: error is an AuthError
                #expect(error.code == .authenticationFailed && error.retryAfterSeconds == nil)
            }
            #expect(prompts.asked.count == 1)      // PAM asked: the try reached the stack
            #expect(prompts.failures.last?.1.beforeStop == 5 - n)   // "Wrong passcode; N tries left before a wait"
        }

        // The 6th is refused before PAM sees it, even with the right passcode.
        let sixth = ScriptedPromptSource(["alice-passcode"])
        do {
            try world.context(store: store, prompts: sixth).evaluateSynchronously(.deviceOwner, reason: "test")
            Issue.record("the 6th try was let through")
        } catch {
            #expect(error.code == .authenticationFailed)
            #expect(error.retryAfterSeconds == 60)
        }
        #expect(sixth.asked.isEmpty)
        #expect(try store.user("alice").passcodeFailures == 5)

        // Set the clock past the delay instead of sleeping: the right passcode opens again.
        clock.advance(by: 60)
        try world.context(store: store, prompts: ScriptedPromptSource(["alice-passcode"]))
            .evaluateSynchronously(.deviceOwner, reason: "test")
        #expect(try store.user("alice").passcodeFailures == 0)
    }
}
