import Glibc
import Testing
import TouchGateSystem

/// ``StreamSocket``: a connection accepted close-on-exec from the start, none on an empty
/// non-blocking listener, and whole buffers across the stream.
@Suite struct StreamSocketTests {
    /// A non-blocking listener on a fresh path, and a client connected to it.
    private struct Listener {
        let listening: Int32
        let path: String

        init() throws {
            var template = Array("/tmp/touchgate-stream-XXXXXX".utf8CString)
            guard let directory = mkdtemp(&template) else { throw Errno.current }
            path = String(cString: directory) + "/socket"
            listening = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = Self.address(path)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard listening >= 0, bound == 0, listen(listening, 4) == 0 else { throw Errno.current }
        }

        func connectClient() throws -> Int32 {
            let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = Self.address(path)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard client >= 0, connected == 0 else { throw Errno.current }
            return client
        }

        func close() {
            _ = Glibc.close(listening)
            unlink(path)
            rmdir(String(path.dropLast("/socket".count)))
        }

        private static func address(_ path: String) -> sockaddr_un {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { sunPath in
                for (index, byte) in path.utf8.enumerated() { sunPath[index] = byte }
            }
            return address
        }
    }

    @Test func anEmptyListenerHasNothingToAccept() throws {
        let listener = try Listener()
        defer { listener.close() }
        #expect(StreamSocket.acceptConnection(listener.listening) == nil)
    }

    @Test func anAcceptedConnectionIsCloseOnExecAndCarriesWholeBuffers() throws {
        let listener = try Listener()
        defer { listener.close() }
        let client = try listener.connectClient()
        defer { close(client) }
        let accepted = try #require(StreamSocket.acceptConnection(listener.listening))
        defer { close(accepted) }
        #expect(fcntl(accepted, F_GETFD) & FD_CLOEXEC != 0)

        let sent: [UInt8] = Array(0..<200)
        #expect(sent.withUnsafeBytes { StreamSocket.sendAll(client, $0) })
        var received = [UInt8](repeating: 0, count: sent.count)
        #expect(StreamSocket.receiveAll(accepted, &received))
        #expect(received == sent)
        #expect(StreamSocket.acceptConnection(listener.listening) == nil, "one client, one connection")
    }
}
