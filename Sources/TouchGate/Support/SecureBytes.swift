import Glibc

/// Overwrites `bytes` with zeros in a way the optimizer may not drop, then empties it.
///
/// The zeros go into the storage itself, even when another array value still shares it: a
/// mutable view (`withUnsafeMutableBytes`) would first copy shared storage, wipe the copy and
/// leave the secret where it was.
///
/// The corresponding C function is `explicit_bzero`.
func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeBytes { buffer in
        if let base = buffer.baseAddress { explicit_bzero(UnsafeMutableRawPointer(mutating: base), buffer.count) }
    }
    bytes.removeAll(keepingCapacity: false)
}
