import Testing
import TouchGateSystem

/// ``FilePath`` and the file reader ``fileContents(_:limit:)``.
@Suite struct FilePathTests {
    @Test func componentsAndAppending() {
        let path: FilePath = "/tmp/x/fprintd.log"
        #expect(path.isAbsolute)
        #expect(path.lastComponent == "fprintd.log")
        #expect(path.removingLastComponent == "/tmp/x")
        #expect(FilePath("/tmp").removingLastComponent == "/")
        #expect(FilePath("/tmp").appending("a") == "/tmp/a")
        #expect(FilePath("/tmp/").appending("a") == "/tmp/a")
        #expect(!FilePath("relative/file").isAbsolute)
        let pid = 42
        #expect(FilePath("/proc/\(pid)/stat").string == "/proc/42/stat")
    }

    @Test func theReaderReadsWholeOrToTheLimit() {
        let whole = fileContents("/proc/self/cmdline")
        #expect(whole?.isEmpty == false)
        #expect(fileContents("/proc/self/cmdline", limit: 3)?.count == 3)
        #expect(fileContents("/nonexistent/touchgate-file") == nil)
        #expect(fileContents("/") == nil, "a directory cannot be read")
    }
}
