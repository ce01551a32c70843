import Foundation
import Testing
@testable import TouchGate
@testable import TouchGateCore

/// The protocol `pam_touchgate.so` (C, no Swift runtime) shares with the helper, held to the
/// Swift side: the module's LAError -> PAM status table (`status_for_outcome`) against
/// ``ModuleChannel/pamStatus(for:)``, one test per code, and its frame kinds (the
/// `TOUCHGATE_FRAME_*` defines) against ``ModuleChannel/Kind``, one test per kind. The C is read
/// as text, so a number changed on one side only fails here.
@Suite struct ModuleProtocolTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: path.hasPrefix("/") ? URL(fileURLWithPath: path) : root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The C table: each `case N:` of `status_for_outcome` with the PAM status name it returns,
    /// and the name the `default:` returns.
    static func moduleTable() throws -> (cases: [Int: String], otherwise: String) {
        let source = try text("PAMModule/pam_touchgate.c")
        guard let start = source.range(of: "int status_for_outcome(int32_t code) {"),
              let end = source.range(of: "\n}\n", range: start.upperBound..<source.endIndex) else {
            Issue.record("status_for_outcome not found in pam_touchgate.c")
            return ([:], "")
        }
        var cases: [Int: String] = [:]
        var otherwise = ""
        for line in source[start.upperBound..<end.lowerBound].split(separator: "\n") {
            let code = line.split(separator: "//").first.map(String.init) ?? ""
            guard let returned = code.range(of: "return ") else { continue }
            let name = code[returned.upperBound...].prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
            if code.contains("default:") { otherwise = name }
            for piece in code.components(separatedBy: "case ").dropFirst() {
                if let number = Int(piece.prefix { $0 != ":" }.trimmingCharacters(in: .whitespaces)) { cases[number] = name }
            }
        }
        return (cases, otherwise)
    }

    /// `#define NAME VALUE` of a C header, by name (the value as written).
    static func defines(_ path: String, prefix: String) throws -> [String: String] {
        var found: [String: String] = [:]
        for line in try text(path).split(separator: "\n") where line.hasPrefix("#define " + prefix) {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if words.count >= 3 { found[String(words[1])] = String(words[2]) }
        }
        return found
    }

    static let codes: [AuthError.Code?] = [nil] + AuthError.Code.allCases + [.storeUnavailable]

    @Test(arguments: codes)
    func theModuleReturnsTheStatusSwiftSays(code: AuthError.Code?) throws {
        let table = try Self.moduleTable()
        #expect(!table.cases.isEmpty && !table.otherwise.isEmpty)
        let name = table.cases[code?.rawValue ?? 0] ?? table.otherwise
        let statuses = try Self.defines("/usr/include/security/_pam_types.h", prefix: "PAM_")
        let value = try #require(statuses[name].flatMap { Int32($0) }, "\(name) is not a PAM status")
        #expect(value == ModuleChannel.pamStatus(for: code), "LAError \(code?.rawValue ?? 0): C returns \(name)")
    }

    @Test func everyCodeTheModuleNamesIsOneSwiftKnows() throws {
        let known = Set(Self.codes.map { $0?.rawValue ?? 0 })
        for code in try Self.moduleTable().cases.keys { #expect(known.contains(code), "C names LAError \(code)") }
    }

    static var kinds: [(ModuleChannel.Kind, String)] { [
        (.start, "START"), (.answer, "ANSWER"), (.noAnswer, "NO_ANSWER"), (.promptEchoOff, "PROMPT_OFF"),
        (.promptEchoOn, "PROMPT_ON"), (.info, "INFO"), (.error, "ERROR"), (.outcome, "OUTCOME"),
    ] }

    @Test(arguments: ["START", "ANSWER", "NO_ANSWER", "PROMPT_OFF", "PROMPT_ON", "INFO", "ERROR", "OUTCOME"])
    func eachFrameKindIsTheModulesByte(name: String) throws {
        let kind = try #require(Self.kinds.first { $0.1 == name }?.0)
        let value = try #require(try Self.defines("PAMModule/pam_touchgate.h", prefix: "TOUCHGATE_FRAME_")["TOUCHGATE_FRAME_" + name])
        #expect(value == "'\(Character(Unicode.Scalar(kind.rawValue)))'", "TOUCHGATE_FRAME_\(name) is \(value)")
    }

    @Test func theModuleHasNoFrameKindSwiftLacks() throws {
        let names = try Self.defines("PAMModule/pam_touchgate.h", prefix: "TOUCHGATE_FRAME_").keys.filter { $0 != "TOUCHGATE_FRAME_MAX" }
        #expect(Set(names) == Set(Self.kinds.map { "TOUCHGATE_FRAME_" + $0.1 }))
        #expect(try Self.defines("PAMModule/pam_touchgate.h", prefix: "TOUCHGATE_FRAME_MAX")["TOUCHGATE_FRAME_MAX"]
                == String(ModuleChannel.maximumPayload))
    }
}
