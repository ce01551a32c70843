
/// The current boot's id, `/proc/sys/kernel/random/boot_id`: a new random value at every boot.
///
/// Read from the fixed path only: the process's view of `/proc` is what a test changes (a
/// private mount namespace binding another file over it), never an environment variable.
package enum BootID {
    /// The path the kernel publishes the id at.
    static let path = "/proc/sys/kernel/random/boot_id"

    /// The id (its 36 characters, without the newline), or `nil` when it cannot be read.
    package static func current() -> String? {
        guard let bytes = fileContents(FilePath(path)) else { return nil }
        let id = bytes.prefix { $0 != 0x0A }
        let hex = id.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) || $0 == 0x2D }
        return id.isEmpty || id.count > 64 || !hex ? nil : String(decoding: id, as: UTF8.self)
    }
}
