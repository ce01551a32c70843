import Glibc
import Synchronization

/// Secret bytes (an answer to a prompt: a passcode, a factor's reply) that cannot be copied and
/// wipe themselves when their one owner lets them go.
///
/// Why: a copyable `[UInt8]` is wiped only where each holder remembers to, and each copy (an enum
/// payload, a returned value, a captured variable) is one more place the secret stays. Being
/// `~Copyable`, a value has one owner at a time, moved from prompt to conversation to PAM's
/// response, and the compiler refuses a copy; its bytes live in memory of their own, locked
/// against swapping (`mlock`) where `RLIMIT_MEMLOCK` allows, and `deinit` wipes them with
/// `explicit_bzero` whoever drops them last, on every path (an early return, a thrown error).
///
/// The corresponding C functions are `malloc`, `mlock`, `explicit_bzero`, `munlock` and `free`.
public struct SecureBytes: ~Copyable {
    private let base: UnsafeMutablePointer<UInt8>
    /// How many bytes the secret has.
    public let count: Int

    /// A copy of `bytes`, in locked memory; the caller wipes its own.
    public init(copying bytes: UnsafeRawBufferPointer) {
        count = bytes.count
        let size = max(1, bytes.count)
        base = malloc(size)!.bindMemory(to: UInt8.self, capacity: size)
        // Best effort: over the limit the bytes still work, only unlocked.
        _ = mlock(base, size)
        if let source = bytes.baseAddress, bytes.count > 0 { memcpy(base, source, bytes.count) }
    }

    /// A copy of `bytes`, for answers that are no one's secret (scripted sources, the demo, tests).
    public init(_ bytes: some Sequence<UInt8>) {
        let array = Array(bytes)
        self.init(copying: array.withUnsafeBytes { $0 })
    }

    deinit {
        let size = max(1, count)
        explicit_bzero(base, size)
        Self.wipeObserver.withLock { $0?(UnsafeRawBufferPointer(start: base, count: count)) }
        munlock(base, size)
        free(base)
    }

    /// For tests: handed every value's bytes just after its `deinit` wiped them, before they are freed.
    static let wipeObserver = Mutex<(@Sendable (UnsafeRawBufferPointer) -> Void)?>(nil)

    public var isEmpty: Bool { count == 0 }

    /// Lends the bytes to `body`, which must not keep them.
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Whether `byte` is among the bytes (a NUL, which no PAM response may hold).
    public func contains(_ byte: UInt8) -> Bool {
        withUnsafeBytes { $0.contains(byte) }
    }
}

/// Overwrites `bytes` with zeros in a way the optimizer may not drop, then empties it: for the
/// copyable buffers that carry no secret of a prompt's (frames whose kind is read before their
/// payload is, a start frame's items).
///
/// The zeros go into the storage itself, even when another array value still shares it: a
/// mutable view (`withUnsafeMutableBytes`) would first copy shared storage, wipe the copy and
/// leave the secret where it was.
///
/// The corresponding C function is `explicit_bzero`.
package func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeBytes { buffer in
        if let base = buffer.baseAddress { explicit_bzero(UnsafeMutableRawPointer(mutating: base), buffer.count) }
    }
    bytes.removeAll(keepingCapacity: false)
}
