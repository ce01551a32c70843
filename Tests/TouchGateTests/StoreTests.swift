import Glibc
import Synchronization
import Testing
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGateStore
@testable import TouchGateSystem

@Suite(.removesItsFiles) struct StoreTests {
    @Test func aNewStoreIsPrivateAndComplete() throws {
        let path = temporaryStorePath()
        let store = try Store(path: FilePath(path))
        var file = stat()
        var directory = stat()
        #expect(stat(path, &file) == 0)
        #expect(stat(String(path[..<path.lastIndex(of: "/")!]), &directory) == 0)
        #expect(file.st_mode & 0o777 == 0o600)
        #expect(directory.st_mode & 0o777 == 0o700)
        #expect(try store.schemaVersion() == DatabaseMigrator.embedded.latestVersion)
        // No temporary file of the creation is left beside it.
        let entries = directoryEntries(String(path[..<path.lastIndex(of: "/")!]))
        #expect(entries.contains("touchgate.sqlite"))
        #expect(!entries.contains { $0.contains(".creating-") }, "\(entries)")
    }

    /// An error the store's code did not expect is a bug (internal error, exit 70), not a store
    /// that cannot be used (exit 74, the gate offline); the file's own errors stay the file's.
    @Test func anUnexpectedErrorIsAnInternalErrorNotAnUnavailableStore() throws {
        struct Unexpected: Error {}
        let store = try Store(path: FilePath(temporaryStorePath()))
        let bug = #expect(throws: StoreError.self) { try store.perform { throw Unexpected() } }
        #expect(bug?.reason == .internalError)
        #expect(bug.map(ExitCode.init) == .internalError)
        let file = #expect(throws: StoreError.self) { try store.perform { try store.database.run("SELECT * FROM nowhere") } }
        #expect(file?.reason == .unavailable)
        #expect(file.map(ExitCode.init) == .store)
    }

    @Test func anEmptyFileIsDamageNotANewStore() throws {
        let path = temporaryStorePath()
        try Store.prepareDirectory(for: FilePath(path))
        close(open(path, O_CREAT | O_WRONLY, 0o600))
        let error = #expect(throws: StoreError.self) { _ = try Store(path: FilePath(path)) }
        #expect(error?.reason == .corrupt)
        var info = stat()
        stat(path, &info)
        #expect(info.st_size == 0, "the file was left as it was")
    }

    @Test func aDirectoryOthersCanWriteIsRefusedUnlessSticky() throws {
        let path = temporaryStorePath()
        let directory = String(path[..<path.lastIndex(of: "/")!])
        try Store.prepareDirectory(for: FilePath(path))
        chmod(directory, 0o777)
        let error = #expect(throws: StoreError.self, "a store in a world-writable directory was accepted") {
            _ = try Store(path: FilePath(path))
        }
        #expect(error?.reason == .insecurePermissions)
        #expect(access(path, F_OK) != 0, "nothing was created there")
        chmod(directory, 0o1777)
        _ = try Store(path: FilePath(path))
    }

    @Test func aStoreOthersCanWriteIsRefused() throws {
        let path = temporaryStorePath()
        _ = try Store(path: FilePath(path))
        chmod(path, 0o620)
        let error = #expect(throws: StoreError.self, "a group-writable store was accepted") { _ = try Store(path: FilePath(path)) }
        #expect(error?.reason == .insecurePermissions)
        #expect(error?.description.contains(path) == true)
    }

    @Test func theWriteAheadLogOutlivesAConnectionAndHoldsItsCommits() throws {
        let path = temporaryStorePath()
        do {
            let store = try Store(path: FilePath(path), clock: TestClock())
            try store.setEnabled(true, user: "alice", session: nil)
        }
        var log = stat()
        #expect(stat(path + "-wal", &log) == 0, "the log is kept when the last connection closes")
        #expect(log.st_size > 0 && log.st_mode & 0o777 == 0o600)
        let reopened = try Store(path: FilePath(path))
        #expect(try reopened.user("alice").enabled, "the commit is read back from the kept log")
        #expect(try reopened.database.scalar("PRAGMA integrity_check")?.string == "ok")
    }

    @Test func theKeptLogIsFoldedInBeforeItGrowsLong() throws {
        let path = temporaryStorePath()
        let configuration = Configuration()
        for _ in 0..<60 {
            let store = try Store(path: FilePath(path))
            guard case .admitted(let attempt) = try store.admitAttempt(
                .passcode, user: "alice", session: nil, purpose: .evaluation(.deviceOwner), configuration: configuration) else {
                Issue.record("not admitted"); return
            }
            try store.finishAttempt(attempt, user: "alice", factor: .passcode, result: .success)
        }
        // 60 evaluations wrote some 360 pages; checkpoints every 32 keep the log (reused from its
        // start after each one) to a few dozen frames, which every opening process reads.
        var log = stat()
        #expect(stat(path + "-wal", &log) == 0)
        let frame = 24 + 4096
        #expect(log.st_size <= 32 + (Int(Store.checkpointPages) + 16) * frame, "the log has \(log.st_size) bytes")
        let store = try Store(path: FilePath(path))
        #expect(try store.auditEntries(limit: 1000).count == 60)
        #expect(try store.user("alice").passcodeFailures == 0)
    }

    @Test func anAdmissionLeavesItsCheckpointToAHelperThread() throws {
        let path = temporaryStorePath()
        let store = try Store(path: FilePath(path))
        var helper: HelperThread?
        var fileBefore: [UInt8] = []
        var fileAfterAdmission: [UInt8] = []
        // Each evaluation adds about six pages, so within 40 an admission brings the log to its
        // limit (a settlement that does leaves the checkpoint to the next transaction's start).
        for _ in 0..<40 where helper == nil {
            fileBefore = fileContents(path)
            guard case .admitted(let attempt) = try store.admitAttempt(
                .passcode, user: "alice", session: nil, purpose: .evaluation(.deviceOwner), configuration: Configuration()) else {
                Issue.record("not admitted"); return
            }
            // Read before the helper starts: from then on it may fold the log in at any moment (a
            // loaded machine runs the new thread first; one that cannot create it runs the fold inline).
            fileAfterAdmission = fileContents(path)
            helper = store.foldLogInBackground()
            if helper == nil {
                try store.finishAttempt(attempt, user: "alice", factor: .passcode, result: .success)
            }
        }
        let folding = try #require(helper, "an admission brought the log to its limit")
        let unchanged = fileAfterAdmission == fileBefore
        #expect(unchanged, "that admission's commit did not wait for a checkpoint")
        folding.join()
        let folded = fileContents(path) != fileBefore
        #expect(folded, "the helper folded the log into the file")
        #expect(store.foldLogInBackground() == nil, "the checkpoint was due once")
        #expect(try store.database.scalar("PRAGMA integrity_check")?.string == "ok")
        #expect(try Store(path: FilePath(path)).user("alice").passcodeFailures == 1, "the pending admission is read back")
    }

    @Test func aSessionChangeAndItsAuditEntryCommitTogether() throws {
        let store = try Store(path: FilePath(temporaryStorePath()))
        let policy = SessionLifecycle.Policy(enabled: true, graceSeconds: 0)
        try store.updateSession("s1", user: "alice", recording: .didFinishLaunching) { record in
            #expect(record.lifecycle.handle(.didFinishLaunching, now: 0, policy: policy) == .requireUnlock)
        }
        #expect(try store.session("s1")?.lifecycle.state == .inactive)
        let entries = try store.auditEntries(limit: 10)
        #expect(entries.map(\.outcome) == ["did-finish-launching"] && entries.first?.session == "s1", "\(entries)")
        // A transition the state does not allow changes neither the session nor the log.
        #expect(throws: SessionLifecycle.InvalidTransition.self) {
            try store.updateSession("s1", user: "alice", recording: .willEnterForeground) { record in
                if case .refused(let refusal) = record.lifecycle.handle(.willEnterForeground, now: 0, policy: policy) {
                    throw refusal
                }
            }
        }
        #expect(try store.session("s1")?.lifecycle.state == .inactive)
        #expect(try store.auditEntries(limit: 10).count == 1)
    }

    @Test func storedSettingsApplyInKeyOrderAndTheFirstBadOneIsReported() throws {
        let store = try Store(path: FilePath(temporaryStorePath()))
        // Inserted in the other order: the report must not depend on how rows or a hash come out.
        for (key, value) in [("reuse-seconds", "never"), ("grace-seconds", "soon"), ("idle-seconds", "60")] {
            try store.database.run("INSERT INTO user_config (user, key, value) VALUES ('alice', ?, ?)", .text(key), .text(value))
        }
        let error = #expect(throws: StoreError.self) { try store.configuration(user: "alice") }
        #expect(error?.reason == .invalidSetting)
        #expect(error?.description.contains("grace-seconds") == true, "\(String(describing: error))")
        try store.database.run("DELETE FROM user_config WHERE key IN ('grace-seconds', 'reuse-seconds')")
        #expect(try store.configuration(user: "alice").idleSeconds == 60)
        #expect(try store.configuration(user: "bob") == Configuration(), "another user's settings are not alice's")
    }

    @Test func aSettlementLeavesCommitsSyncedAgain() throws {
        let store = try Store(path: FilePath(temporaryStorePath()))
        try store.passcodeSucceededInThisBoot(user: "alice")
        #expect(try store.database.scalar("PRAGMA synchronous")?.int == 2, "FULL")
        guard case .admitted(let attempt) = try store.admitAttempt(
            .biometric, user: "alice", session: nil, purpose: .evaluation(.deviceOwner), configuration: Configuration()) else {
            Issue.record("not admitted"); return
        }
        try store.finishAttempt(attempt, user: "alice", factor: .biometric, result: .failure(.authenticationFailed))
        #expect(try store.database.scalar("PRAGMA synchronous")?.int == 2, "back to FULL after the settlement")
        #expect(try store.user("alice").biometricFailures == 1)
    }

    @Test func aLogOrIndexOthersCouldChangeIsRefused() throws {
        for suffix in ["-wal", "-shm"] {
            let path = temporaryStorePath()
            do { _ = try Store(path: FilePath(path)) }
            #expect(chmod(path + suffix, 0o666) == 0)
            let writable = #expect(throws: StoreError.self, "a world-writable \(suffix) was accepted") {
                _ = try Store(path: FilePath(path))
            }
            #expect(writable?.reason == .insecurePermissions)
            #expect(writable?.description.contains("its \(suffix) file is writable by other users") == true, "\(String(describing: writable))")

            // Private, but another user's (the suite runs as root, as the CI does).
            #expect(chmod(path + suffix, 0o600) == 0)
            #expect(chown(path + suffix, 65534, 65534) == 0)
            let foreign = #expect(throws: StoreError.self, "another user's \(suffix) was accepted") {
                _ = try Store(path: FilePath(path))
            }
            #expect(foreign?.reason == .insecurePermissions)
            #expect(foreign?.description.contains("its \(suffix) file belongs to user 65534") == true, "\(String(describing: foreign))")

            #expect(unlink(path + suffix) == 0)
            #expect(symlink(path, path + suffix) == 0)
            let linked = #expect(throws: StoreError.self, "a \(suffix) that is a symbolic link was accepted") {
                _ = try Store(path: FilePath(path))
            }
            #expect(linked?.reason == .unavailable)
            #expect(linked?.description.contains("not a regular file") == true, "\(String(describing: linked))")
        }
    }

    /// Eight threads of their own (tasks would share the cooperative pool's few threads and
    /// run one or two at a time), released together.
    @Test func manyThreadsCreatingOneStoreAllGetIt() throws {
        let path = temporaryStorePath()
        let opened = Mutex(0)
        let go = Mutex(false)
        let threads = (0..<8).map { _ in
            HelperThread {
                while !go.withLock({ $0 }) { sched_yield() }
                if (try? Store(path: FilePath(path))) != nil { opened.withLock { $0 += 1 } }
            }
        }
        go.withLock { $0 = true }
        for thread in threads { thread.join() }
        #expect(opened.withLock { $0 } == 8)
        let store = try Store(path: FilePath(path))
        #expect(try store.schemaVersion() == DatabaseMigrator.embedded.latestVersion)
    }

    @Test func messagesShowControlCharactersEscaped() {
        let error = StoreError(path: "/tmp/a\nb", reason: .unavailable, detail: "x")
        #expect(!error.description.contains("\n"))
    }
}

/// Every byte of the file at `path` (none when it cannot be read).
func fileContents(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "rb") else { return [] }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while case let count = fread(&buffer, 1, buffer.count, file), count > 0 {
        bytes += buffer[..<count]
    }
    return bytes
}

/// The names in `directory`.
///
/// The corresponding C functions are `opendir` and `readdir`.
func directoryEntries(_ directory: String) -> [String] {
    guard let handle = opendir(directory) else { return [] }
    defer { closedir(handle) }
    var names: [String] = []
    while let entry = readdir(handle) {
        let name: String = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        names.append(name)
    }
    return names
}
