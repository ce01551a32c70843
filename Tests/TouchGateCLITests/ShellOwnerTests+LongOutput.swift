import Foundation
import Testing

/// A long output through the owner while the screen is shown: the screen model's thread leaves
/// most of its lines out of libvterm (InnerScreen's plain-line shortcut, compared byte stream by
/// byte stream with libvterm fed everything in InnerScreenTests); here, end to end, what the
/// owner writes back after an unlock must still be those lines, every one once and in order.
extension ShellOwnerTests {
    @Test func aLongOutputsLastThousandLinesComeBackInOrderAfterAnUnlock() throws {
        let world = try Self.lockedWorld()
        let terminal = try Self.ownerOnOwnPTY(world)
        try Self.waitFor(Self.gateTitle, after: 0, on: terminal)
        try Self.unlockDirect(terminal, after: 0)
        let session = try world.sqlite("SELECT session FROM shell_owners LIMIT 1")
        // 30,000 numbered lines computed inside (the command line shows none of them).
        let typed = try Self.type("seq -f 'SHOWN-%06g' 1 30000; echo DONE-$((6*7))", thenWaitFor: "DONE-42", on: terminal)
        try Self.waitFor(OwnerHarness.prompt, after: typed, on: terminal)
        let beforeLock = terminal.screen.count
        try Self.lock(world, session)
        try Self.waitFor("Password:", after: beforeLock, on: terminal)
        let beforeUnlock = try Self.unlockDirect(terminal, after: beforeLock)
        try Self.waitFor("SHOWN-030000", after: beforeUnlock, on: terminal)
        try Self.waitFor("DONE-42", after: beforeUnlock, on: terminal)
        let after = String(terminal.screen.dropFirst(beforeUnlock))
        // The numbers in the order written back: the scrollback (1000 lines), then the screen.
        let numbers = after.components(separatedBy: "SHOWN-").dropFirst().map { Int($0.prefix(6)) ?? -1 }
        let kept = after.components(separatedBy: "\u{1B}[2K\u{1B}[0mSHOWN-").count - 1
        #expect(kept == 1000, "\(kept) lines of the output written back into the scrollback")
        #expect(numbers.last == 30000)
        #expect(numbers.count > 1000 && zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 + 1 },
                "not every line once and in order: \(numbers.prefix(5))… \(numbers.suffix(5)) (\(numbers.count))")
        terminal.type("exit 3\r")
        #expect(try terminal.wait() == 3)
    }
}
