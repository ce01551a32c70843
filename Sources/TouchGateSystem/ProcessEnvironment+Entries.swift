import Glibc

extension ProcessEnvironment {
    /// This process's environment, `NAME=value` each.
    public var entries: [String] {
        var entries: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            entries.append(String(cString: entry))
            pointer += 1
        }
        return entries
    }
}
