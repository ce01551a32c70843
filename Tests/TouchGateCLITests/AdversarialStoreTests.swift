import Foundation
import Testing
import TestSupport

/// A store that cannot be used, in every way one can break: each gives exit 74 with one line on
/// standard error naming the store, no credential reaches PAM, nothing unlocks, and the bytes
/// that were there stay as they were; once the fault is repaired, nothing was lost.
@Suite struct AdversarialStoreTests {
    /// The commands that read the store, each with the right secret as its answer.
    static let commands: [(arguments: [String], input: String)] = [
        (["-S", "--json", "auth", "--policy", "biometrics"], "alice-finger\n"),
        (["-S", "--json", "auth"], "alice-finger\nalice-passcode\n"),
        (["-S", "disable"], "alice-finger\nalice-passcode\n"),
        (["-S", "reset"], "alice-passcode\n"),
        (["-S", "config", "set", "reuse-seconds", "300"], "alice-finger\nalice-passcode\n"),
        (["event", "did-become-active", "--session", "s1"], ""),
        (["status"], ""),
        (["log"], ""),
    ]

    /// alice enrolled, the lock on, two biometric failures on record, and session `s1` locked.
    static func lockedWorld() throws -> TestEnvironment {
        let world = try TestEnvironment()
        try world.adversarialEnroll()
        let enable = try world.runText(["-S", "enable"], input: "alice-finger\n")
        guard enable.status == 0 else { throw TestFailure("enable failed: \(enable)") }
        let wrong = try world.runText(["-S", "auth", "--policy", "biometrics"], input: "wrong-1\nwrong-2\n")
        guard wrong.status == 2 else { throw TestFailure("two wrong fingers then end of input: \(wrong)") }
        let launch = try world.runText(["--json", "event", "did-finish-launching", "--session", "s1"])
        guard launch.json?["locked"] as? Bool == true else { throw TestFailure("s1 is not locked: \(launch)") }
        let status = try world.adversarialStatus()
        guard status["biometricFailures"] as? Int == 2 else { throw TestFailure("unexpected state: \(status)") }
        // touchgate keeps its write-ahead log; fold it into the file, so that damaging the file
        // below damages everything the store holds.
        try world.foldWriteAheadLog()
        return world
    }

    /// Runs every command against the broken store and checks the refusal; `prefix` runs them as
    /// another user. Returns nothing: every check is an expectation.
    static func expectRefused(
        _ world: TestEnvironment, detail: String, prefix: [String] = [],
        commands: [(arguments: [String], input: String)] = commands, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = world.rawStoreFiles()
        let callsBefore = world.allCalls()
        let biometricBefore = world.calls("touchgate-biometric")
        for (arguments, input) in commands {
            let result = try world.runRaw(arguments, input: Data(input.utf8), prefix: prefix)
            #expect(result.status == 74, "\(arguments): \(result)", sourceLocation: sourceLocation)
            let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: true)
            #expect(lines.count == 1, "one line: \(result)", sourceLocation: sourceLocation)
            #expect(lines.first?.hasPrefix("touchgate: store \(world.storePath): ") == true, "\(result)",
                    sourceLocation: sourceLocation)
            #expect(detail.split(separator: "|").contains { result.stderr.contains($0) },
                    "\(arguments) says why (\(detail)): \(result)", sourceLocation: sourceLocation)
            #expect(!result.stderr.contains("Password"), "nothing was asked: \(result)", sourceLocation: sourceLocation)
            if arguments.contains("--json") {
                #expect(result.json?["exitCode"] as? Int == 74, "\(result)", sourceLocation: sourceLocation)
                #expect(result.json?["outcome"] == nil, "no outcome at all, least of all success: \(result)",
                        sourceLocation: sourceLocation)
            }
        }
        #expect(world.allCalls() == callsBefore, "no credential reached PAM", sourceLocation: sourceLocation)

        // The gate cannot read the store either: it holds the terminal and takes only the passcode,
        // never the biometric factor, whose lockout it cannot count.
        let gate = try world.runRaw(["-S", "gate", "--session", "s1"], input: Data("alice-finger\n".utf8), prefix: prefix)
        #expect(gate.status != 0, "the finger does not open the gate: \(gate)", sourceLocation: sourceLocation)
        #expect(gate.status < 64 || gate.status == 74, "no crash: \(gate)", sourceLocation: sourceLocation)
        #expect(world.calls("touchgate-biometric") == biometricBefore, sourceLocation: sourceLocation)

        let after = world.rawStoreFiles()
        #expect(after[""] == before[""], "the store's bytes are unchanged", sourceLocation: sourceLocation)
        #expect(after["-journal"]?.isEmpty ?? true, sourceLocation: sourceLocation)
    }

    /// Overwrites `count` bytes at `offset` of the store with seeded random bytes.
    static func scribble(_ path: String, offset: Int, count: Int, seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }))
    }

    @Test(arguments: [("one page", 4096), ("half", -2), ("all but the last page", -1), ("mid-header", 60)])
    func truncatedStoreIsRefused(name: String, length: Int) throws {
        let world = try Self.lockedWorld()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: world.storePath)[.size] as? Int)
        let keep = length == -2 ? size / 2 : length == -1 ? size - 4096 : length
        #expect(truncate(world.storePath, off_t(keep)) == 0, "\(name)")
        try Self.expectRefused(world, detail: "database disk image is malformed")
    }

    @Test func garbageOverTheLockStateIsRefused() throws {
        let world = try Self.lockedWorld()
        // The root pages of alice's counters, the sessions and the audit log: the header stays intact.
        for table in ["users", "sessions", "audit"] {
            let page = try #require(Int(try world.sql("SELECT rootpage FROM sqlite_master WHERE name = '\(table)'")))
            try Self.scribble(world.storePath, offset: (page - 1) * 4096, count: 4096, seed: UInt64(page))
        }
        try Self.expectRefused(world, detail: "database disk image is malformed")
    }

    @Test func garbageOverTheHeaderIsRefused() throws {
        let world = try Self.lockedWorld()
        try Self.scribble(world.storePath, offset: 0, count: 100, seed: 0x6A7B)
        try Self.expectRefused(world, detail: "file is not a database")
    }

    @Test func newerSchemaIsRefusedAndLeftAlone() throws {
        let world = try Self.lockedWorld()
        _ = try world.sql("PRAGMA user_version = 99")
        try Self.expectRefused(world, detail: "schema version 99 is newer than this touchgate understands")
        #expect(try world.sql("PRAGMA user_version") == "99")
        #expect(try world.sql("SELECT biometric_failures FROM users WHERE name = 'alice'") == "2")
    }

    @Test func directoryInPlaceOfTheStoreIsRefused() throws {
        let world = try Self.lockedWorld()
        world.storePath = world.directory.appendingPathComponent("state/dir.sqlite").path
        try FileManager.default.createDirectory(atPath: world.storePath, withIntermediateDirectories: true)
        try Self.expectRefused(world, detail: "is not a regular file")
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: world.storePath, isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    /// Runs as `nobody` (root ignores permission bits), so the PAM directory must let it count calls.
    static func asNobody(_ world: TestEnvironment) throws -> [String] {
        try TestEnvironment.tool("/bin/chmod", ["0777", world.pamDirectory.path])
        return ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    }

    @Test func readOnlyStoreIsRefused() throws {
        let world = try Self.lockedWorld()
        let prefix = try Self.asNobody(world)
        let directory = world.directory.appendingPathComponent("nobody").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let path = directory + "/touchgate.sqlite"
        try FileManager.default.copyItem(atPath: world.storePath, toPath: path)
        try TestEnvironment.tool("/bin/chown", ["-R", "nobody:nogroup", directory])
        try TestEnvironment.tool("/bin/chmod", ["0700", directory])
        try TestEnvironment.tool("/bin/chmod", ["0400", path])
        world.storePath = path
        try Self.expectRefused(world, detail: "cannot read and write: Permission denied", prefix: prefix)

        // Writable again, nothing was lost: the same counters, the session still locked.
        try TestEnvironment.tool("/bin/chmod", ["0600", path])
        let status = try world.runRaw(["--json", "status"], prefix: prefix)
        #expect(status.status == 0, "\(status)")
        #expect(status.json?["biometricFailures"] as? Int == 2, "\(status)")
        #expect((status.json?["sessions"] as? [[String: Any]])?.first?["locked"] as? Bool == true, "\(status)")
    }

    @Test func storeInADirectoryItCannotWriteIsRefused() throws {
        let world = try Self.lockedWorld()
        let prefix = try Self.asNobody(world)
        // The file is nobody's, but SQLite cannot create its -wal and -shm beside it.
        let directory = world.directory.appendingPathComponent("root-owned").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        try TestEnvironment.tool("/bin/chmod", ["0755", directory])
        let path = directory + "/touchgate.sqlite"
        try FileManager.default.copyItem(atPath: world.storePath, toPath: path)
        try TestEnvironment.tool("/bin/chown", ["nobody:nogroup", path])
        world.storePath = path
        try Self.expectRefused(world, detail: "readonly database", prefix: prefix)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    /// A full disk, simulated by a small tmpfs: with no room at all, and with just enough room to
    /// open the store (its shared-memory index) but not to write the write-ahead count.
    @Test(arguments: ["no room", "room to open only"])
    func fullDiskIsRefused(room: String) throws {
        let world = try Self.lockedWorld()
        let mountPoint = world.directory.appendingPathComponent("small-disk").path
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
        let mount = try TestEnvironment.tool("/bin/mount", ["-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", mountPoint])
        try #require(mount.status == 0, "mounting a small tmpfs needs root: \(mount)")
        defer { _ = try? TestEnvironment.tool("/bin/umount", ["-l", mountPoint]) }
        let path = mountPoint + "/touchgate.sqlite"
        try FileManager.default.copyItem(atPath: world.storePath, toPath: path)
        world.storePath = path
        // Fill the disk.
        let filler = mountPoint + "/filler"
        _ = FileManager.default.createFile(atPath: filler, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: filler))
        let page = Data(repeating: 0x55, count: 4096)
        while (try? handle.write(contentsOf: page)) != nil {}
        try? handle.close()
        var commands = Self.commands
        if room == "room to open only" {
            // Give back one page at a time until a read-only command can open the store.
            var size = try #require(try FileManager.default.attributesOfItem(atPath: filler)[.size] as? Int)
            while try world.runText(["status"]).status != 0 {
                size -= 4096
                try #require(size > 0, "the store never opened")
                #expect(truncate(filler, off_t(size)) == 0)
            }
            commands = commands.filter { !["status", "log"].contains($0.arguments.first) }
        }
        try Self.expectRefused(world, detail: "database or disk is full|disk I/O error", commands: commands)
        // A new shell's launch cannot be recorded: the gate for its unknown session does not open
        // on the finger either (it can only take the passcode, through the passcode-only gate).
        let launch = try world.runRaw(["event", "did-finish-launching", "--session", "new-shell"], input: Data())
        #expect(launch.status == 74, "\(launch)")
        let unknown = try world.runRaw(["-S", "gate", "--session", "new-shell"], input: Data("alice-finger\n".utf8))
        #expect(unknown.status != 0, "an unknown session opened: \(unknown)")

        // Room again: the store opens, passes its integrity check, and lost nothing.
        try FileManager.default.removeItem(atPath: filler)
        #expect(try world.sql("PRAGMA integrity_check") == "ok")
        let status = try world.adversarialStatus()
        #expect(status["biometricFailures"] as? Int == 2, "\(status)")
        #expect((status["sessions"] as? [[String: Any]])?.first?["locked"] as? Bool == true, "\(status)")
        let auth = try world.runText(["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        #expect(auth.status == 0, "\(auth)")
    }

    @Test func storeOthersCanWriteIsRefused() throws {
        for mode in ["0620", "0602", "0666"] {
            let world = try Self.lockedWorld()
            try TestEnvironment.tool("/bin/chmod", [mode, world.storePath])
            try Self.expectRefused(world, detail: "is writable by other users")
            let permissions = try FileManager.default.attributesOfItem(atPath: world.storePath)[.posixPermissions] as? Int
            #expect(permissions == Int(mode, radix: 8), "touchgate does not change the mode itself")
        }
    }

    @Test func newStoreIsPrivateWhateverTheUmask() throws {
        let world = try TestEnvironment()
        world.storePath = world.directory.appendingPathComponent("a/b/c/touchgate.sqlite").path
        let result = try world.runRaw(["status"], prefix: ["/bin/sh", "-c", "umask 000; exec \"$0\" \"$@\""])
        #expect(result.status == 0, "\(result)")
        for path in ["a", "a/b", "a/b/c"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: world.directory.appendingPathComponent(path).path)
            #expect(attributes[.posixPermissions] as? Int == 0o700, "\(path)")
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: world.storePath)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        // The default location under XDG_STATE_HOME, likewise. The user is one no host has: root
        // naming an account of the host reads that account's own store instead (Runner+SystemStore).
        let state = world.directory.appendingPathComponent("xdg").path
        let nobodysName = "tgtest-none-" + UUID().uuidString.prefix(8).lowercased()
        let defaultRun = try world.runRaw(["status"], prefix: ["/bin/sh", "-c", "umask 000; exec \"$0\" \"$@\""],
                                         environment: ["TOUCHGATE_STORE": "", "XDG_STATE_HOME": state,
                                                       "TOUCHGATE_USER": nobodysName])
        #expect(defaultRun.status == 0, "\(defaultRun)")
        let defaultStore = try FileManager.default.attributesOfItem(atPath: state + "/touchgate/touchgate.sqlite")
        #expect(defaultStore[.posixPermissions] as? Int == 0o600)
        let defaultDirectory = try FileManager.default.attributesOfItem(atPath: state + "/touchgate")
        #expect(defaultDirectory[.posixPermissions] as? Int == 0o700)
    }
}
