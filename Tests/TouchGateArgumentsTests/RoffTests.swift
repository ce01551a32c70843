import Testing
import TouchGateArguments

/// Text into roff: nothing of it is read as a request or an escape, and no line is longer than 80 bytes.
@Suite struct RoffTests {
    @Test func hyphensAndBackslashesAreEscaped() {
        #expect(Roff.text("--store C:\\x") == "\\-\\-store C:\\ex")
    }

    @Test func noLineStartsAsARequest() {
        let text = Roff.text(String(repeating: "word ", count: 16) + ".TH oops 'and more")
        for line in text.split(separator: "\n") {
            #expect(!line.hasPrefix(".") && !line.hasPrefix("'"), "\(line)")
            #expect(line.utf8.count <= 80, "\(line)")
        }
        #expect(text.contains("\\&.TH"))
    }
}
