extension Substring {
    /// Without the spaces, tabs and carriage returns at either end (a line of /etc/touchgate.conf).
    package var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return text
    }
}
