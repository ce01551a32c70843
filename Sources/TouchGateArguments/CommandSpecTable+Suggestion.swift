extension CommandSpecTable {
    /// The command word closest to `word` (a typo such as `statsu` for `status`): the one fewest
    /// single-character edits away (insertions, deletions, substitutions, or two neighbours swapped),
    /// when that is at most a third of its length (at least one edit); the table's first on a tie.
    package func nearestCommandWord(to word: String) -> String? {
        let typed = Array(word.lowercased().utf8)
        guard !typed.isEmpty, typed.count <= 64 else { return nil }
        var best: (word: String, distance: Int)?
        for commandWord in commandWords {
            let candidate = Array(commandWord.utf8)
            let distance = Self.editDistance(typed, candidate)
            guard distance <= max(1, candidate.count / 3) else { continue }
            if best == nil || distance < best!.distance { best = (commandWord, distance) }
        }
        return best?.word
    }

    /// The optimal-string-alignment distance between `a` and `b`.
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
