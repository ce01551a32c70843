extension String {
    /// Padded with spaces to `width` characters: a column of `touchgate --system status`.
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    /// Without the spaces at its end (the last column's padding).
    var trimmingTrailingSpaces: String {
        var text = Substring(self)
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
