import Foundation
import Testing
import TouchGate

/// touchgate.conf(5), `man/touchgate.conf.5`, written by hand: it names the file touchgate reads
/// and every key of `touchgate config` (a key added to `Configuration` without it fails here), and
/// lints and renders clean as the other pages do.
struct SystemPolicyManPageTests {
    static let page = TestEnvironment.packageRoot.appendingPathComponent("man/touchgate.conf.5").path

    @Test func itNamesTheFileAndEveryKey() throws {
        let text = try String(contentsOfFile: Self.page, encoding: .utf8)
        #expect(text.contains(".I " + SystemPolicy.path))
        for key in Configuration.Key.allCases {
            #expect(text.contains(".B " + key.rawValue.replacingOccurrences(of: "-", with: "\\-") + "\n"), "\(key.rawValue)")
        }
    }

    @Test func itLintsAndRendersClean() throws {
        try ManPageLint.expectClean(Self.page)
        let rendered = try TestEnvironment.execute("/usr/bin/man", ["-l", "-P", "cat", Self.page], environment: ["MANWIDTH": "80"])
        #expect(rendered.status == 0 && rendered.stdout.contains("touchgate.conf"), "\(rendered)")
    }
}
