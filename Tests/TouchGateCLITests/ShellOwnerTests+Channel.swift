import Foundation
import Testing
import TouchGate

/// The owner's channel against another local account (issue 30): no one but the owner can answer
/// for it, and an owner no one could reach still covers its terminal.
extension ShellOwnerTests {
    /// Another account watches `/proc` for the starting owner and binds every name its channel
    /// could have (the abstract name it once had, the fallback directory's path) first, answering
    /// `ok` to every `lock`. The owner listens in its private directory all the same, and at a
    /// suspend the watcher reaches the owner itself: the terminal is covered, and nothing typed
    /// reaches the shell (before, the squatter's `ok` released the inhibitor and the shell ran
    /// what was typed after the resume).
    @Test func anotherAccountSquattingTheChannelCannotSilenceTheLockAtASuspend() throws {
        try #require(geteuid() == 0, "needs root to run the squatter as another uid")
        let (bus, world) = try Self.watchedWorld()
        let squatter = try ChannelSquatter(world: world, directories: ["/tmp/touchgate-\(geteuid())",
                                                                      world.runtimeDirectory + "/touchgate"])
        let owner = try OwnerHarness(world: world, shell: "bash")
        defer { owner.shutdown() }
        try Self.startUnlocked(owner)
        let (session, ownerPID) = try owner.owner()
        let seen = try squatter.waitForOwner(ownerPID)
        // It got the abstract name (no one holds it now), never the owner's own path.
        #expect(seen.contains("abstract=True") && seen.contains("\(world.runtimeDirectory)/touchgate=False"), "\(seen)")
        #expect(OwnerChannel.running(directories: [FilePath(world.runtimeDirectory).appending("touchgate")]).contains { $0.pid == ownerPID })
        try owner.typeLine("echo VISIBLE-$((40+2))")
        try owner.waitForScreen(containing: "VISIBLE-42")

        let watcher = try WatchTests.startWatcher(world, bus)
        defer { watcher.signal(SIGTERM) }
        let rawBefore = owner.rawOutput().count
        try bus.prepareForSleep(true)
        try gateEventually("the inhibitor released") { try !bus.touchgateInhibits() }
        // The owner's own answer came, with its cover up, before the release.
        #expect(owner.coverDrawn(since: rawBefore, by: try owner.owner().pid), "the owner drew no cover")
        #expect(try world.gateSessionStatus(session)?.locked == true)
        #expect(!watcher.errorsSoFar.contains("did not answer") && !watcher.errorsSoFar.contains("no channel"), "\(watcher.errorsSoFar)")
        #expect(!squatter.lines.contains("answered"), "the watcher talked to the squatter: \(squatter.lines)")
        try bus.prepareForSleep(false)
        try Self.waitForGate(owner)
        #expect(!(try owner.screen().contains("VISIBLE-42")))
        // 0 shells reachable: a line typed after the resume goes to the gate, never to bash.
        try owner.typeLine("touch '\(Self.markPath(world, "reached"))'")
        try Self.waitForGate(owner)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!Self.exists(world, "reached"))
        #expect(!(try owner.ended()))
    }

    /// A lock the owner was never told of (the store marked locked behind its back, as when its
    /// `lock` never arrived) covers the terminal at the next focus report, focus in or out: the
    /// owner reads its session's lock again at each, and before, it only recorded the event.
    @Test func aFocusReportMakesTheOwnerReadItsLockAgain() throws {
        let world = try Self.lockedWorld()
        let owner = try OwnerHarness(world: world, shell: "bash")
        defer { owner.shutdown() }
        try Self.startUnlocked(owner)
        let (session, _) = try owner.owner()
        try owner.typeLine("echo VISIBLE-$((40+2))")
        try owner.waitForScreen(containing: "VISIBLE-42")
        _ = try world.sqlite("UPDATE sessions SET locked = 1 WHERE id = '\(session)'")
        // Keys still pass: nothing told the owner.
        try owner.typeLine("echo STILL-$((2+3))")
        try owner.waitForScreen(containing: "STILL-5")
        let rawBefore = owner.rawOutput().count
        try owner.tmux(["send-keys", "-t", "o", "-H", "1b", "5b", "49"])
        try Self.waitForGate(owner)
        #expect(owner.coverDrawn(since: rawBefore, by: try owner.owner().pid), "the owner drew no cover")
        #expect(!(try owner.screen().contains("VISIBLE-42")))
        try Self.unlock(owner)
        try owner.waitForScreen(containing: "VISIBLE-42")
    }

    /// SIGUSR1 (what the watcher and `touchgate event` send an owner that did not confirm on its
    /// channel) makes the owner look at its session: a locked one is covered.
    @Test func sigusr1MakesTheOwnerLookAtItsSession() throws {
        let world = try Self.lockedWorld()
        let owner = try OwnerHarness(world: world, shell: "bash")
        defer { owner.shutdown() }
        try Self.startUnlocked(owner)
        let (session, ownerPID) = try owner.owner()
        try owner.typeLine("echo VISIBLE-$((40+2))")
        try owner.waitForScreen(containing: "VISIBLE-42")
        _ = try world.sqlite("UPDATE sessions SET locked = 1 WHERE id = '\(session)'")
        #expect(OwnerChannel.nudge(try #require(ProcessIdentity.of(ownerPID))))
        try Self.waitForGate(owner)
        #expect(!(try owner.screen().contains("VISIBLE-42")))
        #expect(!(try owner.ended()))
    }

    /// `touchgate shell` does not start without a channel of its own: with no private directory
    /// for it (XDG_RUNTIME_DIR open to others, and the fallback taken by another account), it says
    /// why in one line and exits 69 before the shell runs.
    @Test func anOwnerThatCannotSetUpItsChannelRefusesToStart() throws {
        try #require(geteuid() == 0, "needs root for a private mount namespace")
        let world = try Self.lockedWorld()
        world.extraEnvironment["XDG_RUNTIME_DIR"] = "/tmp/open"
        // In a private mount namespace with a /tmp of its own (the host's stays as it is): a
        // runtime directory open to everyone, and the fallback made by another account before
        // the owner ever ran. The binary is reached through the host's /tmp, kept under a private
        // /run, wherever the checkout is (a clone under /tmp among them). `script` gives the owner
        // a terminal (without one it would run the program directly).
        let script = """
            binary=$0
            mount -t tmpfs tmpfs /run && mkdir /run/host-tmp && mount --bind /tmp /run/host-tmp || exit 90
            case $binary in /tmp/*) binary=/run/host-tmp/${binary#/tmp/} ;; esac
            mount -t tmpfs tmpfs /tmp && mkdir -m 777 /tmp/open && mkdir -m 700 /tmp/touchgate-0 && chown 4245 /tmp/touchgate-0 \\
            && exec script -qec "$binary shell -- /bin/sh -c 'echo SHELL-RAN'" /dev/null
            """
        let result = try TestEnvironment.execute("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", script,
                                                                      TestEnvironment.binary], environment: world.environment)
        #expect(result.status == 69, "\(result)")
        #expect(!result.stdout.contains("SHELL-RAN"), "\(result)")
        #expect(result.stdout.contains("touchgate: shell: cannot set up the owner's channel, not starting an unprotected shell: "
                                       + "/tmp/touchgate-0 belongs to uid 4245, not 0\r\n"), "\(result)")
    }
}
