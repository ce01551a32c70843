extension String {
    /// This string with every `character` in it replaced by `replacement`.
    ///
    /// Not the standard `replacing(_:with:)`: that one lives in `_StringProcessing`, and calling it
    /// at all links the regex engine (`_StringProcessing` and `_RegexParser`)
    /// into the static binary, whose metadata every start of `touchgate` then has to relocate.
    package func replacingEvery(_ character: Character, with replacement: String) -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for element in self {
            if element == character { result += replacement } else { result.append(element) }
        }
        return result
    }
}
