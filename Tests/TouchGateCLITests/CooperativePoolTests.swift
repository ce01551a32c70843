import Foundation
import Testing

/// No async function of the tests blocks its thread on a process or a sleep: a source scan of
/// `Tests/` (CONTRIBUTING.md, "Swift's cooperative pool").
///
/// Swift Testing runs the tests on the cooperative pool (two threads on a 2-CPU machine); an async
/// test that waits there for a child process holds a thread that every awaiting test needs to
/// resume. Such a wait belongs in `onAThreadOfItsOwn { … }` (TestSupport), which the scan skips,
/// as it skips `Thread { … }`, string literals and comments. It sees direct calls only: a
/// synchronous helper that blocks inside is caught only if it is listed in ``blocking``.
@Suite struct CooperativePoolTests {
    /// The calls that block their thread: the worlds' process helpers (``TestEnvironment`` and its
    /// extensions), waits for a child, sleeps, and the fingerprint rig's start and commands.
    static let blocking = try! NSRegularExpression(pattern: [
        #"\bTestEnvironment\s*\("#,
        #"\.(run|runRaw|runText|runWithoutTerminal|runWithoutPAMWrapper|execute|tool|spawn|sqlite|sql|sqliteScript"#
            + #"|setConfig|adversarialConfig|adversarialEnroll|adversarialStatus|enableAndEnroll|enrollWithoutEnabling"#
            + #"|handStoreToNobody|foldWriteAheadLog|statusJSON|gateEvents|gateSessionStatus|gateSessionRow"#
            + #"|gateAuditCount|gateRelaxLockout|waitFor|waitForError|wait|waitUntilExit|withFingerprintReader"#
            + #"|ensureRunning|killFprintd|send)\s*\("#,
        #"(?<![.\w])(gateEventually|waitpid|usleep|sleep|runToCompletion)\s*\("#,
        #"\bThread\s*\.\s*sleep\b"#,
        #"\bFingerprintReader\s*\.\s*start\s*\("#,
    ].joined(separator: "|"))

    @Test func noAsyncFunctionOfTheTestsWaitsOnTheCooperativePool() throws {
        let root = TestEnvironment.packageRoot.appendingPathComponent("Tests")
        let files = (FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".swift") }.sorted()
        #expect(files.count > 50, "the scan found only \(files.count) files under \(root.path)")
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            found += Self.blockingCallsInAsyncFunctions(text).map { "Tests/\(file):\($0)" }
        }
        #expect(found.isEmpty, "blocking calls in async functions (use onAThreadOfItsOwn):\n\(found.joined(separator: "\n"))")
    }

    /// The scan finds what it must and skips what it must: proof that the test above could fail.
    @Test func theScanFindsABlockingCallOnlyWhereItRunsOnThePool() {
        let source = #"""
            func synchronous() throws { _ = try world.run(["status"]) }
            @Test func awaiting() async throws {
                let text = "world.sqlite(\"x\") { in a string }"  // world.run( in a comment
                /* Thread.sleep(forTimeInterval: 1) */
                let world = try await onAThreadOfItsOwn { () throws -> TestEnvironment in
                    let world = try TestEnvironment()
                    try world.setConfig("a", "b")
                    return world
                }
                Thread { usleep(10) }.start()
                try await Task.sleep(for: .milliseconds(1))
                #expect(try world.statusJSON()["x"] as? Int == 0)
                try await eventually("it") { try world.gateAuditCount(factor: "f", outcome: "\(text)") == 1 }
            }
            static func helper(_ world: TestEnvironment) async throws -> String {
                "\(world.directory)" + (try world.sqlite("SELECT 1"))
            }
            """#
        #expect(Self.blockingCallsInAsyncFunctions(source) == [
            #"12: #expect(try world.statusJSON()["x"] as? Int == 0)"#,
            #"13: try await eventually("it") { try world.gateAuditCount(factor: "f", outcome: "\(text)") == 1 }"#,
            #"16: "\(world.directory)" + (try world.sqlite("SELECT 1"))"#,
        ])
    }

    /// `LINE: text` of each blocking call in the body of an async function (or initializer) of
    /// `source`, outside `onAThreadOfItsOwn { … }` and `Thread { … }`.
    static func blockingCallsInAsyncFunctions(_ source: String) -> [String] {
        let code = SwiftCode(source)
        let lines = source.components(separatedBy: "\n")
        var hits = Set<Int>()
        for body in code.asyncFunctionBodies() {
            let scanned = code.blanking(code.offThreadClosures(in: body), in: body)
            let text = String(decoding: scanned, as: UTF8.self)
            for match in blocking.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let offset = body.lowerBound + text.utf8.distance(
                    from: text.utf8.startIndex, to: Range(match.range, in: text)!.lowerBound.samePosition(in: text.utf8)!)
                hits.insert(code.line(of: offset))
            }
        }
        return hits.sorted().map { "\($0): \(lines[$0 - 1].trimmingCharacters(in: .whitespaces))" }
    }
}

/// Swift source with its string literals' text and its comments blanked (newlines kept), so
/// braces and names in them do not count; the code of interpolations stays.
private struct SwiftCode {
    let bytes: [UInt8]

    init(_ source: String) {
        var bytes = Array(source.utf8)
        enum Context { case code(depth: Int), string(multiline: Bool, hashes: Int) }
        var stack: [Context] = [.code(depth: 0)]
        var index = 0
        func at(_ offset: Int, _ text: String) -> Bool {
            let needle = Array(text.utf8)
            return offset + needle.count <= bytes.count && Array(bytes[offset..<offset + needle.count]) == needle
        }
        func blank(_ range: Range<Int>) {
            for offset in range where bytes[offset] != UInt8(ascii: "\n") { bytes[offset] = UInt8(ascii: " ") }
        }
        while index < bytes.count {
            switch stack[stack.count - 1] {
            case .code(let depth):
                if at(index, "//") {
                    let end = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
                    blank(index..<end)
                    index = end
                } else if at(index, "/*") {
                    var end = index + 2
                    while end < bytes.count, !at(end, "*/") { end += 1 }
                    end = min(end + 2, bytes.count)
                    blank(index..<end)
                    index = end
                } else if bytes[index] == UInt8(ascii: "#") || bytes[index] == UInt8(ascii: "\"") {
                    var hashes = 0
                    while index + hashes < bytes.count, bytes[index + hashes] == UInt8(ascii: "#") { hashes += 1 }
                    let quote = index + hashes
                    guard quote < bytes.count, bytes[quote] == UInt8(ascii: "\"") else { index += max(hashes, 1); continue }
                    let multiline = at(quote, "\"\"\"")
                    stack.append(.string(multiline: multiline, hashes: hashes))
                    index = quote + (multiline ? 3 : 1)
                } else if stack.count > 1, bytes[index] == UInt8(ascii: "(") {
                    stack[stack.count - 1] = .code(depth: depth + 1)
                    index += 1
                } else if stack.count > 1, bytes[index] == UInt8(ascii: ")") {
                    if depth == 0 {
                        stack.removeLast()
                        blank(index..<index + 1)
                    } else {
                        stack[stack.count - 1] = .code(depth: depth - 1)
                    }
                    index += 1
                } else {
                    index += 1
                }
            case .string(let multiline, let hashes):
                let marks = String(repeating: "#", count: hashes)
                let close = (multiline ? "\"\"\"" : "\"") + marks
                if at(index, "\\" + marks + "(") {
                    blank(index..<index + 2 + hashes)
                    index += 2 + hashes
                    stack.append(.code(depth: 0))
                } else if at(index, "\\" + marks) {
                    let end = min(index + 2 + hashes, bytes.count)
                    blank(index..<end)
                    index = end
                } else if at(index, close) {
                    stack.removeLast()
                    index += close.utf8.count
                } else {
                    blank(index..<index + 1)
                    index += 1
                }
            }
        }
        self.bytes = bytes
    }

    /// The offset just past the brace that closes the one at `open`.
    func closingBrace(after open: Int) -> Int {
        var depth = 0
        for offset in open..<bytes.count {
            if bytes[offset] == UInt8(ascii: "{") { depth += 1 }
            if bytes[offset] == UInt8(ascii: "}") {
                depth -= 1
                if depth == 0 { return offset + 1 }
            }
        }
        return bytes.count
    }

    private var text: String { String(decoding: bytes, as: UTF8.self) }

    private func ranges(of pattern: String, in range: Range<Int>) -> [Range<Int>] {
        let expression = try! NSRegularExpression(pattern: pattern)
        let slice = String(decoding: bytes[range], as: UTF8.self)
        return expression.matches(in: slice, range: NSRange(slice.startIndex..., in: slice)).map { match in
            let found = Range(match.range, in: slice)!
            let start = slice.utf8.distance(from: slice.utf8.startIndex, to: found.lowerBound.samePosition(in: slice.utf8)!)
            let end = slice.utf8.distance(from: slice.utf8.startIndex, to: found.upperBound.samePosition(in: slice.utf8)!)
            return (range.lowerBound + start)..<(range.lowerBound + end)
        }
    }

    /// The bodies (from `{` to past `}`) of the functions and initializers declared `async`.
    func asyncFunctionBodies() -> [Range<Int>] {
        ranges(of: #"\b(func\s+[^\s(<]+\s*(<[^>{]*>)?|init[?!]?)\s*\([^{]*?\)\s*async\b[^{]*\{"#, in: 0..<bytes.count)
            .map { match in (match.upperBound - 1)..<closingBrace(after: match.upperBound - 1) }
    }

    /// The closures in `body` that run on a thread of their own.
    func offThreadClosures(in body: Range<Int>) -> [Range<Int>] {
        ranges(of: #"\b(onAThreadOfItsOwn|Thread)\s*\{"#, in: body)
            .map { match in (match.upperBound - 1)..<closingBrace(after: match.upperBound - 1) }
    }

    /// The bytes of `range` with `holes` blanked.
    func blanking(_ holes: [Range<Int>], in range: Range<Int>) -> [UInt8] {
        var copy = Array(bytes[range])
        for hole in holes {
            for offset in hole.clamped(to: range) where copy[offset - range.lowerBound] != UInt8(ascii: "\n") {
                copy[offset - range.lowerBound] = UInt8(ascii: " ")
            }
        }
        return copy
    }

    /// The 1-based line of `offset`.
    func line(of offset: Int) -> Int {
        bytes[..<offset].reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }
}
