import Foundation
import Glibc
import Synchronization
import Testing
@testable import TouchGate
@testable import TouchGateSystem
@testable import TouchGateTerminal

/// The secrets' own type (``SecureBytes``): one owner, moved not copied, wiped by its `deinit`;
/// and the authentication path carries no secret in a copyable `[UInt8]`.
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
        switch reader.readLine(interrupter: Interrupter()) {
        case .answer(let bytes): #expect(bytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } == "alice-passcode")
        default: Issue.record("no answer")
        }
    }

    /// The `deinit` wipes the bytes where they are, whoever drops them last (the test hook sees
    /// them after the wipe, before they are freed).
    @Test func droppingTheBytesWipesThem() {
        let seen = Mutex<[UInt8]?>(nil)
        let secret = SecureBytes("alice-passcode".utf8)
        let address = UInt(bitPattern: secret.withUnsafeBytes { $0.baseAddress })
        #expect(secret.withUnsafeBytes { Array($0) } == Array("alice-passcode".utf8))
        SecureBytes.wipeObserver.withLock { observer in
            observer = { bytes in
                if UInt(bitPattern: bytes.baseAddress) == address { seen.withLock { $0 = Array(bytes) } }
            }
        }
        defer { SecureBytes.wipeObserver.withLock { $0 = nil } }
        _ = consume secret
        #expect(seen.withLock { $0 } == Array(repeating: 0, count: 14))
    }

    /// A value moves: the new owner has the same bytes in the same place, no second copy.
    @Test func aMoveKeepsTheOneBuffer() {
        func handOver(_ bytes: consuming SecureBytes) -> SecureBytes { bytes }
        let first = SecureBytes("alice-finger".utf8)
        let address = first.withUnsafeBytes { $0.baseAddress }
        let moved = handOver(first)
        #expect(moved.withUnsafeBytes { $0.baseAddress } == address)
        let (count, holdsNUL, emptyIsEmpty) = (moved.count, moved.contains(0), SecureBytes([]).isEmpty)
        #expect(count == 12 && !holdsNUL && emptyIsEmpty)
    }

    /// No secret travels the authentication path in a copyable `[UInt8]`: a property or parameter
    /// of that type named for an answer, a secret, a passcode, a password or a reply is refused
    /// (they are ``SecureBytes``), so a regression fails here.
    @Test func theAuthenticationPathCarriesNoSecretInACopyableArray() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let folders = [
            "TouchGate/Authentication",
            "TouchGateCore/Authentication",
            "TouchGatePAM",
            "TouchGateTerminal",
            "TouchGate/PAMHelper",
            "TouchGateCore/Terminal",
            "TouchGateTesting",
        ]
        let secretName = try Regex(#"(?i)\b(var|let|case|_?\s*)\s*\w*(answer|secret|passcode|password|reply|response)\w*\s*:\s*(inout\s+)?\[UInt8\]"#)
        let secretCase = try Regex(#"case\s+(answer|secret|passcode|password|reply)\w*\(\s*\[UInt8\]"#)
        // A received frame (an answer may be in it) and PAM's response are the other secrets' ways.
        let secretWay = try Regex(#"func (receive|pamResponse)\([^{]*\[UInt8\]"#)
        var found: [String] = []
        for folder in folders {
            let directory = root.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where line.contains(secretName) || line.contains(secretCase) || line.contains(secretWay) {
                    found.append("\(folder)/\(name):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(found.isEmpty, "secrets in copyable [UInt8] (use SecureBytes):\n\(found.joined(separator: "\n"))")
    }
}
