import Glibc

/// The process environment, read through `getenv` so no Foundation is loaded for it.
public struct ProcessEnvironment: Sendable {
    public static let current = ProcessEnvironment()

    public subscript(name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
