import Foundation
import Testing
import TouchGate
import TouchGateArguments
import TouchGateCLI
import TestSupport

/// Seeded random input for the argument parser and for every setting: the only outcomes are a
/// result or a clean usage error (64) or bad value (65), with a one-line message; a rejected value
/// changes nothing.
@Suite struct FuzzTests {
    /// Random text of the kinds that break parsers: empty, huge, control characters, C1 controls,
    /// combining marks, right-to-left text, emoji, look-alike digits, option-like prefixes.
    struct Texts {
        var generator: SeededGenerator

        static let pieces = [
            "", "-", "--", "---", "=", "==", "-S", "--store", "--user", "--json", "--help", "-h", "--version",
            "--policy", "--reason", "--session", "--limit", "--lock", "--idle-since", "--no-interaction", "--pam-confdir",
            "0", "1", "5", "-1", "+3", "007", "100", "101", "300", "301", "86400", "86401", "604800", "604801",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "1e3", "0x10", "3.0", " 5", "5 ",
            "١٢", "５", "Ⅻ", "0,0,0", ",", ",,", "1,", ",1", "60,300", "1, 2", "nan", "inf", "-0",
            "touchgate", "touchgate-biometric", "a.b_c-d", ".", "..", "a/b", "../etc/passwd", "pam_permit",
            "\n", "\r", "\t", "\u{0}", "\u{1B}[2J", "\u{7F}", "\u{85}", "\u{9B}31m", "\u{2028}", "\u{202E}",
            "é", "e\u{301}", "中文", "🙂", "👩‍👩‍👧", "\u{FFFD}", "\u{FEFF}", "alice", "alice:x", "root",
        ]

        mutating func text() -> String {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0: return ""
            case 1: return String(repeating: Self.pieces.randomElement(using: &generator)!, count: Int.random(in: 1...3000, using: &generator))
            case 2: return String(Int.random(in: Int.min...Int.max, using: &generator))
            case 3: return String(Int.random(in: -3...700_000, using: &generator))
            case 4: return (0..<Int.random(in: 0...40, using: &generator)).map { _ in String(Int.random(in: -2...90_000, using: &generator)) }
                .joined(separator: Bool.random(using: &generator) ? "," : ",,")
            case 5:
                let scalars = (0..<Int.random(in: 0...80, using: &generator)).compactMap { _ in
                    Unicode.Scalar(UInt32.random(in: 0...0x2FF, using: &generator))
                }
                return String(String.UnicodeScalarView(scalars))
            default:
                return (0..<Int.random(in: 1...4, using: &generator)).map { _ in Self.pieces.randomElement(using: &generator)! }
                    .joined()
            }
        }
    }

    /// True when `message` is one line of printable text (no C0, DEL or C1 control characters).
    static func isOnePrintableLine(_ message: String) -> Bool {
        !message.isEmpty && !message.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    @Test func parserFuzz() {
        var texts = Texts(generator: SeededGenerator(seed: 0x9A45_E5))
        let words = CommandTable.table.commandWords + ["get", "set", "frobnicate", "help"]
            + Configuration.Key.allCases.map(\.rawValue) + LifecycleEvent.allCases.map(\.rawValue)
            + TmuxHook.allCases.map(\.rawValue) + ["bash", "zsh", "fish", "biometrics", "device-owner"]
        // Well-formed commands whose values are random, so values reach their validation.
        let templates: [[String?]] = [
            ["log", "--limit", nil], ["event", nil], ["event", nil, "--session", nil], ["config", "set", nil, nil],
            ["config", "get", nil], ["gate", "--idle-since", nil], ["gate", "--session", nil, "--lock"],
            ["tmux-hook", nil, nil], ["tmux-hook", nil, nil, nil], ["shell-init", nil], ["auth", "--policy", nil],
            ["can-evaluate", "--policy", nil], ["status", "--store", nil], ["status", "--user", nil],
            ["auth", "--reason", nil, "--no-interaction"], ["help", nil], [nil, "--json"], ["enable", "--pam-confdir", nil],
        ]
        var outcomes: [Int32: Int] = [:]
        for _ in 0..<6000 {
            var arguments: [String] = []
            if Int.random(in: 0..<3, using: &texts.generator) == 0 {
                arguments = templates.randomElement(using: &texts.generator)!.map { word in
                    word ?? (Bool.random(using: &texts.generator) ? words.randomElement(using: &texts.generator)! : texts.text())
                }
            }
            for _ in 0..<Int.random(in: 0...(arguments.isEmpty ? 8 : 1), using: &texts.generator) {
                switch Int.random(in: 0..<4, using: &texts.generator) {
                case 0: arguments.append(words.randomElement(using: &texts.generator)!)
                case 1:
                    let option = Texts.pieces.filter { $0.hasPrefix("-") }.randomElement(using: &texts.generator)!
                    arguments.append(Bool.random(using: &texts.generator) ? option : option + "=" + texts.text())
                default: arguments.append(texts.text())
                }
            }
            do throws(UsageError) {
                let invocation = try CommandLineParser.parse(arguments)
                outcomes[0, default: 0] += 1
                // What parses is well formed: no empty store, user or PAM directory gets through.
                #expect(invocation.storePath?.isEmpty != true, "\(arguments)")
                #expect(invocation.user?.isEmpty != true, "\(arguments)")
                #expect(invocation.pamConfigurationDirectory?.isEmpty != true, "\(arguments)")
                if case .log(let limit) = invocation.command { #expect((1...100_000).contains(limit)) }
                if case .gate(let options) = invocation.command, let since = options.idleSince {
                    #expect(since.isFinite && since >= 0, "\(arguments)")
                }
            } catch {
                outcomes[error.exitCode.rawValue, default: 0] += 1
                #expect([64, 65].contains(error.exitCode.rawValue), "\(arguments): \(error)")
                #expect(Self.isOnePrintableLine(error.message), "\(arguments): \(error.message.debugDescription)")
            }
        }
        // The corpus reached every kind of outcome, so it tested something.
        #expect(outcomes[0, default: 0] > 100 && outcomes[64, default: 0] > 100 && outcomes[65, default: 0] > 10, "\(outcomes)")
    }

    /// Whether a configuration holds only values its validation would accept.
    static func isValid(_ configuration: Configuration) -> Bool {
        func isService(_ text: String, allowEmpty: Bool) -> Bool {
            (allowEmpty || !text.isEmpty) && text.utf8.count <= 64 && text != "." && text != ".."
                && text.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
                    || "._-".unicodeScalars.contains($0) }
        }
        return (1...100).contains(configuration.maxBiometricFailures)
            && (1...10).contains(configuration.biometricTriesPerEvaluation)
            && (0...86_400).contains(configuration.graceSeconds)
            && (0...300).contains(configuration.reuseSeconds)
            && (0...604_800).contains(configuration.idleSeconds)
            && (1...32).contains(configuration.passcodeDelays.count)
            && configuration.passcodeDelays.allSatisfy { (0...86_400).contains($0) }
            && isService(configuration.passcodeService, allowEmpty: false)
            && isService(configuration.biometricService, allowEmpty: true)
    }

    @Test func everyConfigValueFuzz() {
        var texts = Texts(generator: SeededGenerator(seed: 0xC0_4F16))
        var accepted: [Configuration.Key: Int] = [:]
        var configuration = Configuration()
        for round in 0..<12_000 {
            let key = Configuration.Key.allCases[round % Configuration.Key.allCases.count]
            let text = texts.text()
            let before = configuration
            do throws(Configuration.InvalidValue) {
                try configuration.set(key, to: text)
                accepted[key, default: 0] += 1
                #expect(Self.isValid(configuration), "\(key.rawValue) = \(text.debugDescription)")
                // The stored form reads back to the same configuration, and changing nothing never weakens.
                var reread = before
                try reread.set(key, to: configuration.value(of: key))
                #expect(reread == configuration, "\(key.rawValue) = \(text.debugDescription)")
                #expect(!configuration.weakens(key, to: configuration))
                _ = before.weakens(key, to: configuration)
            } catch {
                #expect(configuration == before, "a rejected value changes nothing: \(key.rawValue) = \(text.debugDescription)")
                #expect(error.key == key.rawValue)
                #expect(error.value == text)
                #expect(Self.isOnePrintableLine(error.description), "\(error.description.debugDescription)")
            }
        }
        for key in Configuration.Key.allCases {
            #expect(accepted[key, default: 0] > 0, "the corpus found a valid \(key.rawValue)")
            #expect(accepted[key, default: 0] < 12_000 / Configuration.Key.allCases.count, "and invalid ones")
        }
        // Whole stored tables, with unknown keys too: a valid configuration or an error, never a bad value.
        for _ in 0..<2_000 {
            var stored: [String: String] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &texts.generator) {
                let name = Bool.random(using: &texts.generator)
                    ? Configuration.Key.allCases.randomElement(using: &texts.generator)!.rawValue : texts.text()
                stored[name] = texts.text()
            }
            if let loaded = try? Configuration(stored: stored) { #expect(Self.isValid(loaded), "\(stored)") }
        }
    }

    /// The real binary, a few hundred times: `config set KEY VALUE` exits 0 and stores the value's
    /// canonical form, or exits 65 with one line and leaves the stored value as it was.
    @Test func configSetThroughTheBinary() throws {
        let world = try TestEnvironment()
        var texts = Texts(generator: SeededGenerator(seed: 0xB1_4A27))
        let keys = Configuration.Key.allCases.map(\.rawValue)
        var statuses: [Int32: Int] = [:]
        // 24 rounds a key, whatever the number of keys.
        for round in 0..<(24 * keys.count) {
            let key = round % 12 == 11 ? texts.text() : keys[round % keys.count]
            // An argument cannot hold a NUL byte.
            let value = texts.text().replacing("\u{0}", with: "")
            let stored = try Store(path: FilePath(world.storePath)).configuration(user: world.user)
            let result = try world.runText(["config", "set", "--", key, value])
            statuses[result.status, default: 0] += 1
            let now = try Store(path: FilePath(world.storePath)).configuration(user: world.user)
            switch result.status {
            case 0:
                let configurationKey = try #require(Configuration.Key(rawValue: key))
                var expected = stored
                try expected.set(configurationKey, to: value)
                #expect(now == expected, "\(key) = \(value.debugDescription): \(result)")
                #expect(result.stderr.isEmpty, "\(result)")
            case 65:
                #expect(now == stored, "a rejected value leaves the store as it was: \(key) = \(value.debugDescription)")
                let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: true)
                #expect(lines.count == 1 && lines[0].hasPrefix("touchgate: "), "\(result)")
                #expect(Self.isOnePrintableLine(String(lines.first ?? "")), "\(result.stderr.debugDescription)")
            default:
                Issue.record("\(key) = \(value.debugDescription): unexpected exit: \(result)")
            }
        }
        #expect(statuses[0, default: 0] > 20 && statuses[65, default: 0] > 20, "\(statuses)")
        #expect(try world.sql("PRAGMA integrity_check") == "ok")
    }
}
