import Glibc

/// Overwrites `bytes` with zeros in a way the optimizer may not drop.
///
/// The corresponding C function is `explicit_bzero`.
func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { buffer in
        if let base = buffer.baseAddress { explicit_bzero(base, buffer.count) }
    }
    bytes.removeAll(keepingCapacity: false)
}
