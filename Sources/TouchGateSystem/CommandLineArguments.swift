import Glibc

/// The arguments, without the program name.
///
/// Swift finds `argv` by walking back from `environ` to the start of the initial stack; when a
/// preloaded library's constructor has already moved `environ` (pam_wrapper's `setenv` does, and
/// with `--static-swift-stdlib` the runtime looks only after it), Swift sees no arguments at all.
/// Then they are read from `/proc/self/cmdline`, which the kernel keeps as `execve` passed them.
/// `touchgate` and `touchgate-watch` both start here, and `touchgate watch` hands them on as they are.
package func commandLineArguments() -> [String] {
    if CommandLine.argc > 0 { return Array(CommandLine.arguments.dropFirst()) }
    guard let bytes = fileContents("/proc/self/cmdline") else { return [] }
    // Each argument ends with a NUL, so the last piece of the split is always empty.
    let words = bytes.split(separator: 0, omittingEmptySubsequences: false).dropLast()
    return words.dropFirst().map { String(decoding: $0, as: UTF8.self) }
}
