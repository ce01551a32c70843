import Foundation
import Testing

/// The directories ``temporaryStorePath(_:)`` made for the running test, removed when it ends
/// (the ``Trait/removesItsFiles`` trait): a run of the suite leaves nothing in /tmp.
///
/// A directory made where no test's scope reaches (a thread of its own does not see the task's
/// locals) is removed when the test process exits instead.
final class TemporaryFiles: @unchecked Sendable {
    @TaskLocal static var current: TemporaryFiles?

    private let lock = NSLock()
    private var directories: [String] = []

    /// Made outside any test's scope: removed at exit.
    private static let leftOver = TemporaryFiles()
    private static let removeAtExit: Void = { atexit { TemporaryFiles.leftOver.removeAll() } }()

    /// Notes `directory` as the running test's (else the process's) to remove.
    static func made(_ directory: String) {
        if let current {
            current.append(directory)
        } else {
            _ = removeAtExit
            leftOver.append(directory)
        }
    }

    private func append(_ directory: String) {
        lock.withLock { directories.append(directory) }
    }

    func removeAll() {
        let all = lock.withLock { () -> [String] in
            defer { directories.removeAll() }
            return directories
        }
        for directory in all { try? FileManager.default.removeItem(atPath: directory) }
    }
}

/// The scope that removes each test case's ``TemporaryFiles`` once it ends, passed or failed.
struct RemovesItsFiles: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope only passes through: each test case gets a list of its own.
        guard testCase != nil else { return try await function() }
        let files = TemporaryFiles()
        defer { files.removeAll() }
        try await TemporaryFiles.$current.withValue(files) { try await function() }
    }
}

extension Trait where Self == RemovesItsFiles {
    /// Each test case's store directories (``temporaryStorePath(_:)``) are removed when it ends.
    static var removesItsFiles: Self { RemovesItsFiles() }
}
