import Glibc
import TouchGateSystem

/// A fixed buffer for a secret being typed or read: its own pages, locked in memory (`mlock`)
/// where `RLIMIT_MEMLOCK` allows, so it is never written to swap; wiped with `explicit_bzero`
/// whenever it is emptied and when it is freed.
final class LockedBuffer {
    private let base: UnsafeMutablePointer<UInt8>
    private let size: Int
    let capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        let page = max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))
        size = (capacity + page - 1) / page * page
        var memory: UnsafeMutableRawPointer?
        if posix_memalign(&memory, page, size) != 0 || memory == nil { memory = malloc(size) }
        base = memory!.bindMemory(to: UInt8.self, capacity: size)
        base.initialize(repeating: 0, count: size)
        // Best effort: over the limit the buffer still works, only unlocked.
        _ = mlock(base, size)
    }

    deinit {
        explicit_bzero(base, size)
        munlock(base, size)
        free(base)
    }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// Appends one byte; false when the buffer is full.
    @discardableResult
    func append(_ byte: UInt8) -> Bool {
        guard count < capacity else { return false }
        base[count] = byte
        count += 1
        return true
    }

    /// Appends `bytes` up to the capacity; returns how many fit.
    @discardableResult
    func append(contentsOf bytes: UnsafeRawBufferPointer) -> Int {
        let taken = min(bytes.count, capacity - count)
        if taken > 0, let source = bytes.baseAddress { memcpy(base + count, source, taken) }
        count += taken
        return taken
    }

    /// Removes the last UTF-8 character (continuation bytes and their lead); false when empty.
    func eraseCharacter() -> Bool {
        guard count > 0 else { return false }
        repeat {
            count -= 1
            let byte = base[count]
            base[count] = 0
            if byte & 0xC0 != 0x80 { break }
        } while count > 0
        return true
    }

    /// Removes the last word and the blanks after it; returns how many characters went.
    func eraseWord() -> Int {
        var erased = 0
        while count > 0, base[count - 1] == 0x20 || base[count - 1] == 0x09 {
            count -= 1
            base[count] = 0
            erased += 1
        }
        while count > 0, base[count - 1] != 0x20, base[count - 1] != 0x09 {
            _ = eraseCharacter()
            erased += 1
        }
        return erased
    }

    /// Reads into the free space after the bytes held; returns what `read` returned.
    ///
    /// The corresponding C function is `read`.
    func read(from descriptor: Int32) -> Int {
        let got = Glibc.read(descriptor, base + count, capacity - count)
        if got > 0 { count += got }
        return got
    }

    /// Drops the last byte (wiping it).
    func removeLast() {
        guard count > 0 else { return }
        count -= 1
        base[count] = 0
    }

    /// Drops the first `prefix` bytes, moving the rest to the front (wiping what is left behind).
    func removeFirst(_ prefix: Int) {
        let taken = min(prefix, count)
        if taken < count { memmove(base, base + taken, count - taken) }
        explicit_bzero(base + (count - taken), taken)
        count -= taken
    }

    /// A copy of the bytes for the caller, locked in memory too where the limit allows, and
    /// wiped when the caller drops it.
    func copy(count length: Int? = nil) -> SecureBytes {
        SecureBytes(copying: UnsafeRawBufferPointer(start: base, count: min(length ?? count, count)))
    }

    func wipe() {
        explicit_bzero(base, size)
        count = 0
    }
}
