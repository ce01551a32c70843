@testable import TouchGate
@testable import TouchGateStore

extension Store {
    /// As after a passcode success in this boot, at the store's clock: the rules of
    /// ``PasscodeRequirement`` let the finger be tried (a real user enrolls with the passcode first).
    func passcodeSucceededInThisBoot(user: String) throws {
        try perform {
            try database.run("INSERT INTO users (name) VALUES (?) ON CONFLICT (name) DO NOTHING", .text(user))
            try recordUnlock(.passcode, user: user, now: clock.now)
        }
    }
}
