import CVTerm
import Testing
import TestSupport
@testable import TouchGateOwner

/// The screen model's plain-line shortcut against libvterm fed every byte: the same byte streams
/// (random, the bench's `cat`, a shell session's) in the same pieces to two models, one with the
/// shortcut and one without, must leave the same screen cells, cursor, alternate screen and
/// scrollback lines, and the shortcut must have left lines out where it could.
@Suite struct InnerScreenTests {
    /// Feeds `pieces` to a model with the shortcut and one without; returns the lines left out.
    @discardableResult
    static func expectSame(_ pieces: [[UInt8]], rows: Int32 = 24, columns: Int32 = 80,
                           sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        let fast = InnerScreen(rows: rows, columns: columns)
        let every = InnerScreen(rows: rows, columns: columns, plainLineShortcut: false)
        for piece in pieces {
            let answers = piece.withUnsafeBytes { (fast.record($0), every.record($0)) }
            #expect(answers.0 == answers.1, sourceLocation: sourceLocation)
        }
        let (screenA, screenB) = (fast.screenCells(), every.screenCells())
        #expect(screenA.count == screenB.count, sourceLocation: sourceLocation)
        for (row, (a, b)) in zip(screenA, screenB).enumerated() {
            #expect(zip(a, b).allSatisfy { InnerScreen.same($0, $1) }, "screen row \(row) differs", sourceLocation: sourceLocation)
        }
        let (keptA, keptB) = (fast.scrollbackCells(), every.scrollbackCells())
        #expect(keptA.count == keptB.count, sourceLocation: sourceLocation)
        for (index, (a, b)) in zip(keptA, keptB).enumerated() {
            #expect(a.count == b.count && zip(a, b).allSatisfy { InnerScreen.same($0, $1) },
                    "scrollback line \(index) of \(keptA.count) differs", sourceLocation: sourceLocation)
        }
        // What the owner writes after an unlock (the cursor, the alternate screen, every cell).
        #expect(fast.redrawSequence() == every.redrawSequence(), sourceLocation: sourceLocation)
        #expect(fast.scrollbackSequence() == every.scrollbackSequence(), sourceLocation: sourceLocation)
        #expect(every.skippedLines == 0, sourceLocation: sourceLocation)
        return fast.skippedLines
    }

    /// `bytes` cut into pieces of random sizes up to `largest`.
    static func pieces(_ bytes: [UInt8], largest: Int, using generator: inout SeededGenerator) -> [[UInt8]] {
        var pieces: [[UInt8]] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + Int.random(in: 1...largest, using: &generator))
            pieces.append(Array(bytes[start..<end]))
            start = end
        }
        return pieces
    }

    static func plainLine(_ length: Int, using generator: inout SeededGenerator) -> [UInt8] {
        (0..<length).map { _ in UInt8.random(in: 0x20...0x7E, using: &generator) }
    }

    /// What a terminal's programs write, the sequences that change how a plain line is drawn or
    /// scrolled among them (character sets, scroll regions, margins, double width, the alternate
    /// screen, insert mode, unfinished sequences and strings, broken UTF-8).
    static let sequences: [String] = [
        "\u{1B}[31m", "\u{1B}[1;4m", "\u{1B}[0m", "\u{1B}[m", "\u{1B}[38;5;200m", "\u{1B}[48;2;1;2;3m", "\u{1B}[7m",
        "\u{1B}(0", "\u{1B}(B", "\u{1B}(A", "\u{1B})0", "\u{0E}", "\u{0F}", "\u{1B}n", "\u{1B}N", "\u{1B}O", "\u{1B}c",
        "\u{1B}[5;20r", "\u{1B}[r", "\u{1B}[2;24r", "\u{1B}[1;23r", "\u{1B}[?69h\u{1B}[5;60s", "\u{1B}[?69h\u{1B}[1;80s",
        "\u{1B}[?69l", "\u{1B}[?6h", "\u{1B}[?6l",
        "\u{1B}[H", "\u{1B}[10;5H", "\u{1B}[24;1H", "\u{1B}[999;1H", "\u{1B}[A", "\u{1B}[5C", "\r", "\n", "\u{1B}M", "\u{1B}D",
        "\u{1B}E",
        "\u{1B}[?1049h", "\u{1B}[?1049l", "\u{1B}[?47h", "\u{1B}[?47l", "\u{1B}#6", "\u{1B}#3", "\u{1B}#5", "\u{1B}#8",
        "\u{1B}[4h", "\u{1B}[4l", "\u{1B}[20h", "\u{1B}[20l", "\u{1B}[?7l", "\u{1B}[?7h", "\u{1B}[?5h", "\u{1B}[?5l",
        "\u{1B}]0;title", "\u{07}", "\u{1B}\\", "\u{1B}P1$q", "\u{1B}[", "\u{1B}[12", "\u{1B}[?", "\u{1B}", "\u{1B}(",
        "\u{18}", "\u{1A}", "\u{7F}", "\u{00}", "\t", "\u{08}", "\u{1B}[2J", "\u{1B}[K", "\u{1B}[3L", "\u{1B}[2M",
        "\u{1B}[6n", "\u{1B}[c", "\u{1B}7", "\u{1B}8", "\u{1B}[!p", "\u{1B}[1\"q", "\u{1B}[?25l", "\u{1B}[S", "\u{1B}[T",
        "é", "→ 中", "\u{0301}",
    ]
    static let brokenUTF8: [[UInt8]] = [[0xE2, 0x82], [0xC3], [0x82], [0xFF], [0xF0, 0x9F, 0x98], [0xE2, 0x82, 0xAC]]

    /// A random stream: runs of plain lines (some too long, some ending in LF alone) between
    /// random sequences.
    static func randomStream(columns: Int, using generator: inout SeededGenerator) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<120 {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<4:
                for _ in 0..<Int.random(in: 0...120, using: &generator) {
                    let length = Int.random(in: 0...10, using: &generator) == 0
                        ? Int.random(in: 0...(columns + 3), using: &generator)
                        : Int.random(in: 0..<max(1, columns - 1), using: &generator)
                    bytes += plainLine(length, using: &generator)
                    bytes += Int.random(in: 0..<40, using: &generator) == 0 ? [0x0A] : [0x0D, 0x0A]
                }
            case 4..<8:
                bytes += Array(sequences.randomElement(using: &generator)!.utf8)
            case 8:
                bytes += brokenUTF8.randomElement(using: &generator)!
            default:
                bytes += plainLine(Int.random(in: 0...(columns * 2), using: &generator), using: &generator)
            }
        }
        return bytes
    }

    @Test(arguments: 0..<24)
    func randomStreamsEndTheSameWithTheShortcut(seed: UInt64) {
        var generator = SeededGenerator(seed: 0x7E57_0000 + seed)
        let sizes: [(Int32, Int32)] = [(24, 80), (5, 20), (3, 12), (40, 132)]
        let (rows, columns) = sizes[Int(seed) % sizes.count]
        var stream: [UInt8] = []
        for _ in 0..<4 { stream += Self.randomStream(columns: Int(columns), using: &generator) }
        let largest = [7, 300, 4096, 65536][Int(seed / 4) % 4]
        Self.expectSame(Self.pieces(stream, largest: largest, using: &generator), rows: rows, columns: columns)
    }

    /// Across the random streams the shortcut did leave lines out (the test above compares
    /// something), while runs behind a scroll region, double-width rows, line drawing, the
    /// alternate screen or margins were fed in full.
    @Test func theShortcutLeavesLinesOutOfRandomStreams() {
        var skipped = 0
        for seed in 0..<8 as Range<UInt64> {
            var generator = SeededGenerator(seed: 0xA11_0000 + seed)
            let stream = (0..<4).flatMap { _ in Self.randomStream(columns: 80, using: &generator) }
            skipped += Self.expectSame(Self.pieces(stream, largest: 65536, using: &generator))
        }
        #expect(skipped > 1000, "\(skipped)")
    }

    /// Each state the shortcut must not skip through, then a long run of plain lines: the same end.
    @Test(arguments: [
        "\u{1B}(0", "\u{0E}", "\u{1B}n", "\u{1B}[5;20r", "\u{1B}[2;24r", "\u{1B}[1;23r", "\u{1B}[?69h\u{1B}[5;60s",
        "\u{1B}[?1049h", "\u{1B}#6", "\u{1B}[4h", "\u{1B}[7m", "\u{1B}]0;never ended", "\u{1B}[12", "\u{1B}N",
        "a\u{E2}\u{82}", "\u{1B}[?5h", "\u{1B}[?6h\u{1B}[3;22r", "\u{1B}(A",
    ])
    func aStateThatChangesPlainLinesIsFollowedExactly(sequence: String) {
        var generator = SeededGenerator(seed: UInt64(sequence.utf8.count) &* 7919)
        var bytes = Array(sequence.utf8)
        for _ in 0..<400 {
            // '#' (the UK set's pound) and 'q' (a line in DEC drawing) in each line.
            bytes += Array("#q".utf8) + Self.plainLine(Int.random(in: 0...70, using: &generator), using: &generator) + [0x0D, 0x0A]
        }
        Self.expectSame([bytes])
    }

    /// The bench's output: 50 MB of base64 lines, here 20,000 in 64 KiB reads. All but the few
    /// checked and the last screenful of each read are left out, and the end is the same.
    @Test func aLongCatIsMostlyLeftOutAndEndsTheSame() {
        var generator = SeededGenerator(seed: 64)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var bytes = Array("P$ cat big.txt\r\n".utf8)
        for _ in 0..<20_000 {
            bytes += (0..<76).map { _ in alphabet.randomElement(using: &generator)! } + [0x0D, 0x0A]
        }
        bytes += Array("\u{1B}[1;32mP$ \u{1B}[0m".utf8)
        var pieces: [[UInt8]] = []
        for start in stride(from: 0, to: bytes.count, by: 65536) {
            pieces.append(Array(bytes[start..<min(bytes.count, start + 65536)]))
        }
        let skipped = Self.expectSame(pieces)
        #expect(skipped > 18_000, "\(skipped)")
    }

    /// A shell session: a coloured prompt, `ls --color`, a long listing, an editor on the
    /// alternate screen with a scroll region, more output after it.
    @Test func aShellSessionEndsTheSame() {
        var generator = SeededGenerator(seed: 7)
        var session: [UInt8] = []
        func add(_ text: String) { session += Array(text.utf8) }
        let prompt = "\u{1B}]0;alice@host: ~\u{07}\u{1B}[01;32malice@host\u{1B}[00m:\u{1B}[01;34m~\u{1B}[00m$ "
        add(prompt + "ls --color\r\n")
        for index in 0..<300 { add("\u{1B}[0m\u{1B}[01;34mdirectory-\(index)\u{1B}[0m  file-\(index).txt\r\n") }
        add(prompt + "seq 1 5000\r\n")
        for number in 1...5000 { add("\(number)\r\n") }
        add(prompt + "vim notes\r\n\u{1B}[?1049h\u{1B}[22;0;0t\u{1B}[1;24r\u{1B}(B\u{1B}[m\u{1B}[4l\u{1B}[?7h\u{1B}[H\u{1B}[2J")
        for row in 1...23 { add("\u{1B}[\(row);1H\u{1B}[94m~\u{1B}[0m" + String(decoding: Self.plainLine(40, using: &generator), as: UTF8.self)) }
        add("\u{1B}[2;23r\u{1B}[23;1H")
        for _ in 0..<100 { add(String(decoding: Self.plainLine(60, using: &generator), as: UTF8.self) + "\r\n") }
        add("\u{1B}[r\u{1B}[?1049l\u{1B}[23;0;0t\r" + prompt + "journalctl\r\n")
        for _ in 0..<3000 { add("Dec 04 17:00:00 host kernel: " + String(decoding: Self.plainLine(45, using: &generator), as: UTF8.self) + "\r\n") }
        add(prompt)
        let skipped = Self.expectSame(Self.pieces(session, largest: 8192, using: &generator))
        #expect(skipped > 4000, "\(skipped)")
    }
}
