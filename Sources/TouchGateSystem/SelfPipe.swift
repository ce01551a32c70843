import Glibc

/// A pipe whose two ends are close-on-exec and non-blocking from the moment they exist
/// (`pipe2(O_CLOEXEC | O_NONBLOCK)`): a signal handler or another thread writes a byte to wake a
/// `poll` on the read end.
///
/// `pipe` then `fcntl(FD_CLOEXEC)` leaves a window in which a child another thread spawns
/// inherits the ends; `pipe2` has none. The one self-pipe of touchgate: its users (the owner's
/// signals, the interrupter, the prompts' cancel, the watcher's wake-up) differ only in who writes.
package struct SelfPipe: Sendable {
    /// The end `poll` waits on.
    package let readEnd: Int32
    /// The end a handler writes a byte to.
    package let writeEnd: Int32

    /// Opens the pipe; throws the `errno` of `pipe2`.
    package init() throws(Errno) {
        var ends: [Int32] = [-1, -1]
        guard Self.pipe2(&ends, O_CLOEXEC | O_NONBLOCK) == 0 else { throw Errno.current }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    /// Opens a pipe for a child's output: close-on-exec, blocking (the child's end is dup2'd,
    /// which clears close-on-exec on the copy).
    package static func forOutput() throws(Errno) -> SelfPipe {
        var ends: [Int32] = [-1, -1]
        guard pipe2(&ends, O_CLOEXEC) == 0 else { throw Errno.current }
        return SelfPipe(readEnd: ends[0], writeEnd: ends[1])
    }

    private init(readEnd: Int32, writeEnd: Int32) {
        self.readEnd = readEnd
        self.writeEnd = writeEnd
    }

    /// Writes one byte to wake the reader; async-signal-safe (a full pipe is awake already).
    package func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Reads every byte written so far (non-blocking), so the next `poll` waits again; whether any was.
    @discardableResult
    package func drain() -> Bool {
        var drained = false
        var buffer = [UInt8](repeating: 0, count: 64)
        while retryingInterrupts({ read(readEnd, &buffer, buffer.count) }) > 0 { drained = true }
        return drained
    }

    /// Closes both ends.
    package func close() {
        _ = Glibc.close(readEnd)
        _ = Glibc.close(writeEnd)
    }

    /// `pipe2`, which the Glibc module does not export to Swift: looked up once in libc.
    private static let pipe2: @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32 = {
        typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
        guard let symbol = dlsym(nil, "pipe2") else { fatalError("libc has no pipe2") }
        return unsafeBitCast(symbol, to: Pipe2.self)
    }()
}
