import Glibc

/// Reads lines from a file descriptor, waking early when an ``Interrupter`` fires.
///
/// Bytes past a line stay buffered for the next prompt, so `-S` can feed several answers through
/// one pipe. Every buffer that held an answer is wiped.
final class LineReader {
    /// PAM's own limit on one response (`PAM_MAX_RESP_SIZE`).
    static let maximumLineLength = 512

    let fileDescriptor: Int32
    private var buffer: [UInt8] = []
    private var reachedEnd = false

    init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    deinit {
        wipe(&buffer)
    }

    func readLine(interrupter: Interrupter) -> PromptAnswer {
        var line: [UInt8] = []
        var overlong = false
        defer { wipe(&line) }
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                if !overlong { line.append(contentsOf: buffer[..<newline]) }
                buffer.withUnsafeMutableBytes { bytes in explicit_bzero(bytes.baseAddress!, newline + 1) }
                buffer.removeSubrange(...newline)
                return finish(&line, overlong: overlong || line.count > Self.maximumLineLength)
            }
            if !buffer.isEmpty {
                if !overlong { line.append(contentsOf: buffer) }
                overlong = overlong || line.count > Self.maximumLineLength
                if overlong { wipe(&line) }
                wipe(&buffer)
            }
            if reachedEnd {
                // On a terminal, end of input is one keypress (Ctrl-D), not the end of the stream:
                // the next prompt reads again instead of seeing end of input forever.
                if isatty(fileDescriptor) == 1 { reachedEnd = false }
                return line.isEmpty && !overlong ? .endOfInput : finish(&line, overlong: overlong)
            }
            if let interruption = interrupter.pending { return .interrupted(interruption) }
            // A pair, not an array: an array of pollfd is one more generic type the runtime would
            // build from its mangled name at the first prompt of every process.
            var fds = (
                pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: interrupter.fileDescriptor, events: Int16(POLLIN), revents: 0)
            )
            let ready = withUnsafeMutableBytes(of: &fds) { poll($0.baseAddress!.assumingMemoryBound(to: pollfd.self), 2, -1) }
            if ready < 0 {
                if errno == EINTR { continue }
                return .endOfInput
            }
            if fds.1.revents != 0, let interruption = interrupter.pending { return .interrupted(interruption) }
            guard fds.0.revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(fileDescriptor, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                reachedEnd = true
            } else if count == 0 {
                reachedEnd = true
            } else {
                buffer.append(contentsOf: chunk[..<count])
            }
            wipe(&chunk)
        }
    }

    private func finish(_ line: inout [UInt8], overlong: Bool) -> PromptAnswer {
        if overlong { return .invalid("the answer is longer than \(Self.maximumLineLength) bytes") }
        if line.contains(0) { return .invalid("the answer contains a NUL byte") }
        if line.last == 0x0D { line.removeLast() }
        // Handed on, not copied: the caller's wipe of `line` must not zero the answer.
        let answer = line
        line = []
        return .answer(answer)
    }
}
