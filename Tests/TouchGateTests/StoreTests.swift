import Glibc
import Testing
@testable import TouchGate

@Suite struct StoreTests {
    @Test func aNewStoreIsPrivateAndComplete() throws {
        let path = temporaryStorePath()
        let store = try Store(path: path)
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

    @Test func anEmptyFileIsDamageNotANewStore() throws {
        let path = temporaryStorePath()
        try Store.prepareDirectory(for: path)
        close(open(path, O_CREAT | O_WRONLY, 0o600))
        #expect(throws: StoreError.self) { _ = try Store(path: path) }
        do { _ = try Store(path: path) } catch { #expect(error.reason == .corrupt) }
        var info = stat()
        stat(path, &info)
        #expect(info.st_size == 0, "the file was left as it was")
    }

    @Test func aDirectoryOthersCanWriteIsRefusedUnlessSticky() throws {
        let path = temporaryStorePath()
        let directory = String(path[..<path.lastIndex(of: "/")!])
        try Store.prepareDirectory(for: path)
        chmod(directory, 0o777)
        do {
            _ = try Store(path: path)
            Issue.record("a store in a world-writable directory was accepted")
        } catch {
            #expect(error.reason == .insecurePermissions)
        }
        #expect(access(path, F_OK) != 0, "nothing was created there")
        chmod(directory, 0o1777)
        _ = try Store(path: path)
    }

    @Test func aStoreOthersCanWriteIsRefused() throws {
        let path = temporaryStorePath()
        _ = try Store(path: path)
        chmod(path, 0o620)
        do {
            _ = try Store(path: path)
            Issue.record("a group-writable store was accepted")
        } catch {
            #expect(error.reason == .insecurePermissions)
            #expect(error.description.contains(path))
        }
    }

    @Test func manyThreadsCreatingOneStoreAllGetIt() async throws {
        let path = temporaryStorePath()
        let opened = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask { (try? Store(path: path)) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(opened == 8)
        let store = try Store(path: path)
        #expect(try store.schemaVersion() == DatabaseMigrator.embedded.latestVersion)
    }

    @Test func messagesShowControlCharactersEscaped() {
        let error = StoreError(path: "/tmp/a\nb", reason: .unavailable, detail: "x")
        #expect(!error.description.contains("\n"))
    }
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
