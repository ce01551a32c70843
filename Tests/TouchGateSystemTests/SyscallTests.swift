import Glibc
import TestSupport
import Testing
import TouchGateSystem

/// The handler of ``SyscallTests/aRealSignalInterruptsAndTheCallIsMadeAgain()``'s signal: installed
/// without SA_RESTART, so a blocking `read` returns EINTR.
nonisolated(unsafe) private var interruptions = 0

/// ``valueOrErrno(retryOnInterrupt:_:)``: the one retry-on-EINTR rule.
@Suite(.serialized) struct SyscallTests {
    /// A real-time signal no other test and no touchgate code uses.
    static let signal: Int32 = 41

    /// A call that fails with `errors` one after another, then returns `value`; how often it was called.
    final class ScriptedCall: @unchecked Sendable {
        var errors: [Int32]
        let value: Int
        var calls = 0
        init(errors: [Int32], value: Int) {
            self.errors = errors
            self.value = value
        }
        func callAsFunction() -> Int {
            calls += 1
            guard !errors.isEmpty else { return value }
            errno = errors.removeFirst()
            return -1
        }
    }

    @Test func anInterruptedCallIsMadeAgain() throws {
        let call = ScriptedCall(errors: [EINTR, EINTR], value: 5)
        #expect(try valueOrErrno { call() }.get() == 5)
        #expect(call.calls == 3)
    }

    @Test func withoutRetryAnInterruptionIsTheError() {
        let call = ScriptedCall(errors: [EINTR], value: 5)
        #expect(throws: Errno.interrupted) { try valueOrErrno(retryOnInterrupt: false) { call() }.get() }
        #expect(call.calls == 1)
    }

    @Test func anotherErrorIsNotRetried() {
        let call = ScriptedCall(errors: [EINTR, EBADF], value: 5)
        #expect(throws: Errno.badFileDescriptor) { try valueOrErrno { call() }.get() }
        #expect(call.calls == 2)
    }

    @Test func retryingInterruptsKeepsCsConvention() {
        let call = ScriptedCall(errors: [EINTR, EAGAIN], value: 5)
        #expect(retryingInterrupts { call() } == -1)
        #expect(errno == EAGAIN)
        #expect(call.calls == 2)
    }

    @Test func aRealSignalInterruptsAndTheCallIsMadeAgain() async throws {
        let pipe = try SelfPipe.forOutput()
        defer { pipe.close() }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in interruptions += 1 }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        var previous = sigaction()
        sigaction(SyscallTests.signal, &action, &previous)
        defer { sigaction(SyscallTests.signal, &previous, nil) }
        interruptions = 0
        let (read, write) = (pipe.readEnd, pipe.writeEnd)
        let result = try await onAThreadOfItsOwn {
            // The reader blocks in read(2) on a thread of its own; this thread signals it, then writes.
            final class Box: @unchecked Sendable {
                var ready = false
                var result: Result<Int, Errno>?
            }
            let box = Box()
            let reader = Unmanaged.passRetained(ReaderJob(descriptor: read, started: { box.ready = true },
                                                           done: { box.result = $0 }))
            var thread = pthread_t()
            pthread_create(&thread, nil, { argument in
                Unmanaged<ReaderJob>.fromOpaque(argument!).takeRetainedValue().run()
                return nil
            }, reader.toOpaque())
            while !box.ready { usleep(1_000) }
            usleep(50_000)
            pthread_kill(thread, SyscallTests.signal)
            usleep(50_000)
            var byte: UInt8 = 7
            _ = Glibc.write(write, &byte, 1)
            pthread_join(thread, nil)
            return box.result
        }
        #expect(interruptions >= 1, "the signal reached the reader")
        #expect(try result?.get() == 1, "the interrupted read was made again and read the byte")
    }
}

/// The reading thread of ``SyscallTests/aRealSignalInterruptsAndTheCallIsMadeAgain()``.
final class ReaderJob: @unchecked Sendable {
    let descriptor: Int32
    let started: () -> Void
    let done: (Result<Int, Errno>) -> Void
    init(descriptor: Int32, started: @escaping () -> Void, done: @escaping (Result<Int, Errno>) -> Void) {
        self.descriptor = descriptor
        self.started = started
        self.done = done
    }
    func run() {
        // The test process may block SyscallTests.signal; this thread takes it.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        sigaddset(&unblocked, SyscallTests.signal)
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        var byte: UInt8 = 0
        started()
        done(valueOrErrno { read(descriptor, &byte, 1) })
    }
}
