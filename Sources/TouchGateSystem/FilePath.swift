import Glibc

/// A path in the file system, as swift-system's `FilePath`: a value type, so a parameter says it
/// takes a path and not any text.
///
/// Kept as the string the system calls take (no normalisation: `lstat` and `open` see the path
/// as given). String literals and interpolations are paths where a `FilePath` is expected.
package struct FilePath: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The path as the system calls take it.
    package var string: String

    package init(_ string: String) { self.string = string }
    package init(stringLiteral value: String) { self.string = value }

    package var description: String { string }

    /// Whether the path starts at the root (`/`).
    package var isAbsolute: Bool { string.hasPrefix("/") }

    /// The path with `component` appended after a `/`.
    package func appending(_ component: String) -> FilePath {
        if string.isEmpty { return FilePath(component) }
        return FilePath(string.hasSuffix("/") ? string + component : string + "/" + component)
    }

    /// The last component (`fprintd.log` of `/tmp/x/fprintd.log`); `nil` for `/` or an empty path.
    package var lastComponent: String? {
        string.split(separator: "/").last.map(String.init)
    }

    /// The path without its last component (`/tmp/x` of `/tmp/x/fprintd.log`; `/` of `/tmp`).
    package var removingLastComponent: FilePath {
        guard let slash = string.lastIndex(of: "/") else { return FilePath("") }
        return slash == string.startIndex ? FilePath("/") : FilePath(String(string[..<slash]))
    }

    /// Calls `body` with the path as a C string.
    package func withPlatformString<Result>(_ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        try string.withCString(body)
    }
}
