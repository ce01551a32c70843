import Testing
@testable import TouchGate
@testable import TouchGateCore

/// The one sanitizer for text that reaches a terminal.
@Suite struct TerminalTextTests {
    @Test func controlCharactersAreShownEscaped() {
        #expect(TerminalText.sanitized("a\u{1B}[?1049lb") == "a\\u{1b}[?1049lb")
        #expect(TerminalText.sanitized("\u{1B}]0;title\u{07}") == "\\u{1b}]0;title\\u{7}")
        #expect(TerminalText.sanitized("csi\u{9B}2J del\u{7F} nl\n tab\t") == "csi\\u{9b}2J del\\u{7f} nl\\u{a} tab\\u{9}")
        #expect(TerminalText.sanitized("left\u{202E}right\u{2066}") == "left\\u{202e}right\\u{2066}")
    }

    @Test func printableTextIsUnchangedAndSanitizingTwiceChangesNothing() {
        let text = "touchgate: unlock session tmux-42-$0 (passcode for alice; é 中)"
        #expect(TerminalText.sanitized(text) == text)
        let once = TerminalText.sanitized("x\u{1B}y\u{9B}")
        #expect(TerminalText.sanitized(once) == once)
    }

    @Test func invalidUTF8BecomesTheReplacementCharacter() {
        #expect(TerminalText.sanitized(bytes: [0x61, 0xFF, 0x62, 0xC2, 0x9B, 0x1B]) == "a\u{FFFD}b\\u{9b}\\u{1b}")
    }

    @Test func theLimitCutsAfterThatManyCharacters() {
        #expect(TerminalText.sanitized("abcdef", limit: 3) == "abc…")
        #expect(TerminalText.sanitized("abc", limit: 3) == "abc")
        #expect("x\u{1B}".escapedForMessage == TerminalText.sanitized("x\u{1B}"))
    }

    @Test func printableMeansNothingWouldBeEscapedAndNoReplacementCharacter() {
        #expect(TerminalText.isPrintable("tmux-4242-$0"))
        #expect(TerminalText.isPrintable("/dev/pts/3"))
        for bad in ["a\u{1B}", "a\u{9B}", "a\u{7F}", "a\u{202E}", "a\u{FFFD}", "a\n"] {
            #expect(!TerminalText.isPrintable(bad), "\(bad.debugDescription)")
        }
    }
}
