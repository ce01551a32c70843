import Foundation
import Testing

/// The checks every checked-in man page passes: `mandoc -T lint -W warning` and, where groff is
/// installed, `groff -ww` with nothing on standard error.
enum ManPageLint {
    static func expectClean(_ page: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let lint = try TestEnvironment.execute("/usr/bin/mandoc", ["-T", "lint", "-W", "warning", page], environment: [:])
        #expect(lint.status == 0, "\(lint)", sourceLocation: sourceLocation)
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") {
            let groff = try TestEnvironment.execute("/usr/bin/groff", ["-ww", "-man", "-Tutf8", "-z", page], environment: [:])
            #expect(groff.status == 0 && groff.stderr.isEmpty, "\(groff)", sourceLocation: sourceLocation)
        }
    }
}
