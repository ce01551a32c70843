import Foundation
import Glibc
import Testing

/// The suite's own output stays readable on a terminal: no raw control characters in the names
/// of test cases, and no child process on the runner's terminal (where it would prompt
/// `Password:`, wait for a key, or be stopped for touching it from the background).
@Suite struct TestOutputTests {
    /// Whether `text` is shown on one line as it is: no C0 or C1 control character, no DEL.
    static func isPlainLine(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    @Test func testCaseArgumentsAreShownWithoutControlCharacters() {
        for argument in BadInputTests.badUserNames {
            let shown = String(describingForTest: argument)
            #expect(Self.isPlainLine(shown), "\(shown.debugDescription)")
        }
        #expect(String(describingForTest: ShownEscaped("a\u{1B}[2Jb")) == #""a\u{1B}[2Jb""#)
    }

    /// Children run in a session of their own: the terminal the runner was started from (if any)
    /// is not theirs. Field 6 of /proc/PID/stat is the session id.
    @Test func childrenDoNotShareTheRunnersSessionOrTerminal() throws {
        let run = try TestEnvironment.execute("/bin/sh", ["-c", "cat /proc/$$/stat; exec 3</dev/tty && echo HAS-TERMINAL"],
                                              environment: ProcessInfo.processInfo.environment)
        let afterName = try #require(run.stdout.split(separator: ")").last, "\(run)")
        let fields = afterName.split(separator: " ")
        let session = try #require(fields.count > 4 ? Int32(fields[3]) : nil, "\(run)")
        #expect(session != getsid(0), "the child is in the runner's session: \(run)")
        #expect(!run.stdout.contains("HAS-TERMINAL"), "\(run)")
    }
}
