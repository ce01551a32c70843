import Glibc

/// A path in the file system, as swift-system's `FilePath`: a value type, so a parameter says it
/// takes a path and not any text.
///
/// Kept as the string the system calls take (no normalisation: `lstat` and `open` see the path
/// as given). String literals and interpolations are paths where a `FilePath` is expected.
public struct FilePath: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The path as the system calls take it.
    public var string: String

    public init(_ string: String) { self.string = string }
    public init(stringLiteral value: String) { self.string = value }

    public var description: String { string }

    /// Whether the path starts at the root (`/`).
    public var isAbsolute: Bool { string.hasPrefix("/") }

    /// The path with `component` appended after a `/`.
    public func appending(_ component: String) -> FilePath {
        if string.isEmpty { return FilePath(component) }
        return FilePath(string.hasSuffix("/") ? string + component : string + "/" + component)
    }

    /// The last component (`fprintd.log` of `/tmp/x/fprintd.log`); `nil` for `/` or an empty path.
    public var lastComponent: String? {
        string.split(separator: "/").last.map(String.init)
    }

    /// The path without its last component (`/tmp/x` of `/tmp/x/fprintd.log`; `/` of `/tmp`).
    public var removingLastComponent: FilePath {
        guard let slash = string.lastIndex(of: "/") else { return FilePath("") }
        return slash == string.startIndex ? FilePath("/") : FilePath(String(string[..<slash]))
    }

    /// Calls `body` with the path as a C string.
    public func withPlatformString<Result>(_ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        try string.withCString(body)
    }
}
