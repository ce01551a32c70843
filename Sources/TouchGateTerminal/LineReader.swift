import Glibc
import TouchGateSystem
import TouchGateCore

/// Reads lines from a file descriptor (`-S`), waking early when an ``Interrupter`` fires.
///
/// Bytes past a line stay buffered for the next prompt, so `-S` can feed several answers through
/// one pipe. Both buffers are locked in memory where the limit allows and wiped after each use.
package final class LineReader {
    /// PAM's own limit on one response (`PAM_MAX_RESP_SIZE`).
    package static let maximumLineLength = 512

    let fileDescriptor: Int32
    private let pending = LockedBuffer(capacity: 4096)
    private let line = LockedBuffer(capacity: maximumLineLength + 1)
    private var reachedEnd = false

    init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    func readLine(interrupter: Interrupter) -> PromptAnswer {
        var overlong = false
        defer { line.wipe() }
        while true {
            let held = pending.bytes
            if let newline = held.firstIndex(of: 0x0A) {
                if !overlong, line.append(contentsOf: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: held[..<newline]))) < newline {
                    overlong = true
                }
                pending.removeFirst(newline + 1)
                return finish(overlong: overlong)
            }
            if !held.isEmpty {
                if !overlong, line.append(contentsOf: UnsafeRawBufferPointer(held)) < held.count { overlong = true }
                if line.count > Self.maximumLineLength { overlong = true }
                if overlong { line.wipe() }
                pending.wipe()
            }
            if reachedEnd {
                // On a terminal, end of input is one keypress (Ctrl-D), not the end of the stream:
                // the next prompt reads again instead of seeing end of input forever.
                if isatty(fileDescriptor) == 1 { reachedEnd = false }
                return line.count == 0 && !overlong ? .endOfInput : finish(overlong: overlong)
            }
            if let interruption = interrupter.pending { return .interrupted(interruption) }
            // A pair, not an array: an array of pollfd is one more generic type the runtime would
            // build from its mangled name at the first prompt of every process.
            var fds = (
                pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: interrupter.fileDescriptor, events: Int16(POLLIN), revents: 0)
            )
            let ready = retryingInterrupts {
                withUnsafeMutableBytes(of: &fds) { poll($0.baseAddress!.assumingMemoryBound(to: pollfd.self), 2, -1) }
            }
            if ready < 0 {
                return .endOfInput
            }
            if fds.1.revents != 0, let interruption = interrupter.pending { return .interrupted(interruption) }
            guard fds.0.revents != 0 else { continue }
            let count = retryingInterrupts { pending.read(from: fileDescriptor) }
            if count < 0 {
                if errno == EAGAIN { continue }
                reachedEnd = true
            } else if count == 0 {
                reachedEnd = true
            }
        }
    }

    /// What is waiting on the input while no question is asked (a biometric wait), without blocking.
    ///
    /// An empty line is consumed (it is the fallback); a non-empty line stays buffered, for the
    /// next prompt to read as its answer, or with `keepText` false is discarded (wiped) unread.
    func peekLine(keepText: Bool) -> WaitingLine {
        if !reachedEnd, pending.bytes.firstIndex(of: 0x0A) == nil {
            var descriptor = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 0) > 0 {
                let count = retryingInterrupts { pending.read(from: fileDescriptor) }
                if count == 0 || (count < 0 && errno != EAGAIN) { reachedEnd = true }
            }
        }
        while let newline = pending.bytes.firstIndex(of: 0x0A) {
            if newline == 0 || (newline == 1 && pending.bytes[0] == 0x0D) {
                pending.removeFirst(newline + 1)
                return .empty
            }
            if keepText { return .text }
            pending.removeFirst(newline + 1)
        }
        let held = pending.bytes
        if reachedEnd {
            if isatty(fileDescriptor) == 1 { reachedEnd = false }
            if !held.isEmpty, !keepText { pending.wipe() }
            return held.isEmpty || !keepText ? .endOfInput : .text
        }
        // A line longer than the buffer without its newline: the next prompt reports it as too long.
        if pending.count == pending.capacity {
            if keepText { return .text }
            pending.wipe()
        }
        return .nothing
    }

    /// Why `line` cannot be an answer, or `nil` when it can: longer than ``maximumLineLength``
    /// (or found `overlong` while it was read), or holding a NUL byte. The one rule for `-S`
    /// lines and for lines typed at the terminal (``TerminalPrompts``).
    static func refusal(of line: LockedBuffer, overlong: Bool) -> PromptAnswer? {
        if overlong || line.count > maximumLineLength { return .invalid("the answer is longer than \(maximumLineLength) bytes") }
        if line.bytes.contains(0) { return .invalid("the answer contains a NUL byte") }
        return nil
    }

    private func finish(overlong: Bool) -> PromptAnswer {
        if let refusal = Self.refusal(of: line, overlong: overlong) { return refusal }
        if line.bytes.last == 0x0D { line.removeLast() }
        return .answer(line.copy())
    }
}
