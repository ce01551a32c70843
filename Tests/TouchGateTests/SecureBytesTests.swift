import Glibc
import Testing
@testable import TouchGate

@Suite struct SecureBytesTests {
    @Test func wipeZeroesStorageThatAnotherValueShares() {
        var secret = Array("alice-passcode".utf8)
        // A second value of the same storage, as an enum payload or a returned copy holds it.
        let sharing = secret
        wipe(&secret)
        #expect(secret.isEmpty)
        #expect(sharing.count == 14 && sharing.allSatisfy { $0 == 0 }, "\(sharing)")
    }

    @Test func aLineReadersAnswerOutlivesTheWipeOfItsLine() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let line = "alice-passcode\n"
        #expect(write(ends[1], line, line.utf8.count) == line.utf8.count)
        close(ends[1])
        let reader = LineReader(fileDescriptor: ends[0])
        guard case .answer(let bytes) = reader.readLine(interrupter: Interrupter()) else {
            Issue.record("no answer"); return
        }
        #expect(String(decoding: bytes, as: UTF8.self) == "alice-passcode")
    }
}
