import Glibc
import TestSupport
import Testing
import TouchGateSystem

/// ``SelfPipe``: both ends close-on-exec and non-blocking from the start, a wake that a `poll`
/// sees, a drain that empties it, and a spawned child that inherits neither end.
@Suite struct SelfPipeTests {
    @Test func bothEndsAreCloseOnExecAndNonBlocking() throws {
        let pipe = try SelfPipe()
        defer { pipe.close() }
        for end in [pipe.readEnd, pipe.writeEnd] {
            #expect(fcntl(end, F_GETFD) & FD_CLOEXEC != 0)
            #expect(fcntl(end, F_GETFL) & O_NONBLOCK != 0)
        }
    }

    @Test func aWakeIsSeenAndADrainEmptiesIt() throws {
        let pipe = try SelfPipe()
        defer { pipe.close() }
        var entry = pollfd(fd: pipe.readEnd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&entry, 1, 0) == 0)
        pipe.wake()
        pipe.wake()
        #expect(poll(&entry, 1, 0) == 1)
        #expect(pipe.drain())
        #expect(poll(&entry, 1, 0) == 0)
        #expect(!pipe.drain())
        var byte: UInt8 = 0
        #expect(read(pipe.readEnd, &byte, 1) == -1 && errno == EAGAIN, "an empty pipe does not block")
    }

    @Test func aChildInheritsNeitherEnd() async throws {
        let pipe = try SelfPipe()
        defer { pipe.close() }
        let (read, write) = (pipe.readEnd, pipe.writeEnd)
        let output = try await onAThreadOfItsOwn {
            try ChildProcess.runCapturingOutput(
                ["/bin/sh", "-c", "for fd in \(read) \(write); do test -e /proc/self/fd/$fd && echo open; done; echo checked"],
                until: .after(seconds: 10))
        }
        #expect(output.text == "checked\n")
    }

    @Test func theOutputPipeIsCloseOnExecAndBlocking() throws {
        let pipe = try SelfPipe.forOutput()
        defer { pipe.close() }
        #expect(fcntl(pipe.readEnd, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(pipe.readEnd, F_GETFL) & O_NONBLOCK == 0)
    }
}

/// ``SelfPipe/relay(_:restart:byte:)``: a signal becomes its byte on the pipe.
@Suite struct SelfPipeSignalTests {
    /// A real-time signal no other test and no touchgate code uses.
    static let signal: Int32 = 40

    @Test func aRelayedSignalWritesItsByte() throws {
        let pipe = try SelfPipe()
        defer { pipe.close() }
        var previous = sigaction()
        sigaction(Self.signal, nil, &previous)
        defer { sigaction(Self.signal, &previous, nil) }
        pipe.relay([Self.signal], restart: true) { $0 == Self.signal ? 0x2A : 0 }
        // raise(3) delivers to this thread, which relay unblocked the signal on.
        raise(Self.signal)
        var byte: UInt8 = 0
        #expect(read(pipe.readEnd, &byte, 1) == 1)
        #expect(byte == 0x2A)
        #expect(!pipe.drain(), "one signal, one byte")
    }
}
