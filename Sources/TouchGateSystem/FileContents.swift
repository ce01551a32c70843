import Glibc

/// The whole content of the file at `path`; `nil` when it cannot be opened or read.
///
/// For small files the programs read whole (`/proc/self/cmdline`, a policy file, a log for a
/// failure's message): the one file reader of touchgate. The file is opened close-on-exec.
/// `limit` bounds what is read (a file larger than it gives its first `limit` bytes).
package func fileContents(_ path: FilePath, limit: Int = Int.max) -> [UInt8]? {
    guard case .success(let descriptor) = valueOrErrno({ path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC | O_NOCTTY) } })
    else { return nil }
    defer { close(descriptor) }
    return try? fileContents(descriptor: descriptor, limit: limit).get()
}

/// What is left to read on `descriptor` (a file the caller opened and checked: `O_NOFOLLOW`,
/// `fstat`), up to `limit` bytes; the `errno` of a read that failed. Interrupted reads are made again.
package func fileContents(descriptor: Int32, limit: Int) -> Result<[UInt8], Errno> {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while bytes.count < limit {
        switch valueOrErrno({ read(descriptor, &chunk, min(chunk.count, limit - bytes.count)) }) {
        case .failure(let error): return .failure(error)
        case .success(0): return .success(bytes)
        case .success(let count): bytes += chunk[..<count]
        }
    }
    return .success(bytes)
}
