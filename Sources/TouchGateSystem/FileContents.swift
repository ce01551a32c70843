import Glibc

/// The whole content of the file at `path`, read with stdio; `nil` when it cannot be opened or read.
///
/// For small files the programs read whole (`/proc/self/cmdline`, a policy file, a log for a
/// failure's message): the one file reader of touchgate. The file is opened close-on-exec.
/// `limit` bounds what is read (a file larger than it gives its first `limit` bytes).
package func fileContents(_ path: FilePath, limit: Int = Int.max) -> [UInt8]? {
    guard let file = path.withPlatformString({ fopen($0, "re") }) else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while bytes.count < limit {
        let count = fread(&chunk, 1, min(chunk.count, limit - bytes.count), file)
        if count <= 0 { break }
        bytes += chunk[..<count]
    }
    return ferror(file) == 0 ? bytes : nil
}
