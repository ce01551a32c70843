import Glibc

/// The whole content of the file at `path`, read with stdio; `nil` when it cannot be opened.
///
/// For small files the programs read whole (`/proc/self/cmdline`, a log for a failure's
/// message): one loop instead of one per caller. The file is opened close-on-exec.
package func fileContents(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "re") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count <= 0 { break }
        bytes += chunk[..<count]
    }
    return bytes
}
