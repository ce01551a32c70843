import Glibc

/// `path` from the root: a relative path is taken from the current directory (as the store opens
/// it), so a snippet's commands read the same store wherever they run.
package func absolutePath(_ path: FilePath) -> FilePath {
    guard !path.isAbsolute, let cwd = getcwd(nil, 0) else { return path }
    defer { free(cwd) }
    return FilePath(String(cString: cwd)).appending(path.string)
}

/// `2026-11-30T14:52:47Z` for a time in seconds since 1970.
///
/// The corresponding C functions are `gmtime_r` and `strftime`.
package func isoTime(_ seconds: Double) -> String {
    var time = time_t(seconds)
    var parts = tm()
    gmtime_r(&time, &parts)
    var buffer = [CChar](repeating: 0, count: 32)
    let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
