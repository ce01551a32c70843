import Glibc
import Testing
@testable import TouchGate
@testable import TouchGatePAM
@testable import TouchGateTerminal

/// What `-S` input means while a biometric stack waits for a sensor (``LineReader/peekLine(keepText:)``).
@Suite struct LineReaderTests {
    /// A reader on a pipe holding `text`; the write end stays open unless `close` is set.
    private func reader(_ text: String, close: Bool = false) -> (LineReader, Int32) {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        _ = text.utf8CString.withUnsafeBufferPointer { write(ends[1], $0.baseAddress, $0.count - 1) }
        if close { Glibc.close(ends[1]) }
        return (LineReader(fileDescriptor: ends[0]), close ? -1 : ends[1])
    }

    @Test func anEmptyLineIsConsumedAndATypedLineStaysForThePrompt() {
        let (reader, writer) = reader("\nsecret\n")
        defer { close(writer); close(reader.fileDescriptor) }
        #expect(reader.peekLine(keepText: true) == .empty)
        #expect(reader.peekLine(keepText: true) == .text)
        #expect(reader.peekLine(keepText: true) == .text, "peeking does not consume it")
        switch reader.readLine(interrupter: Interrupter()) {
        case .answer(let line): #expect(line.withUnsafeBytes { Array($0) } == Array("secret".utf8))
        default: Issue.record("the line left for the prompt was not read")
        }
        #expect(reader.peekLine(keepText: true) == .nothing)
    }

    @Test func withoutKeepingTextATypedLineIsDropped() {
        let (reader, writer) = reader("not-a-passcode\nalso\n\n")
        defer { close(writer); close(reader.fileDescriptor) }
        #expect(reader.peekLine(keepText: false) == .empty, "typed lines dropped up to the empty one")
        #expect(reader.peekLine(keepText: false) == .nothing)
    }

    @Test func aPartialLineIsNothingYetAndEndOfInputIsSaid() {
        let (reader, writer) = reader("abc")
        #expect(reader.peekLine(keepText: true) == .nothing)
        close(writer)
        #expect(reader.peekLine(keepText: true) == .text, "the last line without its newline")
        let (empty, _) = self.reader("", close: true)
        #expect(empty.peekLine(keepText: true) == .endOfInput)
        close(reader.fileDescriptor)
        close(empty.fileDescriptor)
    }

    /// The worker's frames carry fields joined by NUL bytes, empty ones included.
    @Test func workerFieldsRoundTrip() {
        let fields = ["/tmp/pam", "", "203.0.113.7", "42"]
        #expect(WorkerChannel.fields(WorkerChannel.joined(fields)) == fields)
    }
}
