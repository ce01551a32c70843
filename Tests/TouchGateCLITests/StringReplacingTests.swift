import Foundation
import Testing
import TouchGate
@testable import TouchGateCLI

@Suite struct StringReplacingTests {
    @Test func everyOccurrenceIsReplacedAndNothingElse() {
        #expect("a#b##c#".replacingEvery("#", with: "##") == "a##b####c##")
        #expect("".replacingEvery("#", with: "##") == "")
        #expect("no marks".replacingEvery("#", with: "##") == "no marks")
        // Characters, not bytes: an accent combined with its letter is one character, not a match.
        #expect("e\u{301}e".replacingEvery("e", with: "E") == "e\u{301}E")
        #expect("ünï'cødé'".replacingEvery("'", with: "\\'") == "ünï\\'cødé\\'")
    }

    /// What the shell reads back from a quoted word is the original text, whatever it holds.
    @Test func shellQuotedTextComesBackUnchanged() throws {
        for text in ["plain", "it's", "''", "a b\tc", "$HOME `id` $(id) \\ \" ; | & * ?", "ü\u{301} #"] {
            let result = try TestEnvironment.execute("/bin/sh", ["-c", "printf %s " + shellQuoted(text)], input: nil,
                                                     environment: ["PATH": "/usr/bin:/bin"])
            #expect(result.status == 0 && result.stdout == text, "\(text): \(result)")
        }
    }

    @Test func tmuxQuotedTextEscapesWhatTmuxWouldExpand() {
        #expect(tmuxQuoted(#"a"b\c$d"#) == #""a\"b\\c\$d""#)
    }
}
