import Glibc
import Synchronization
@testable import TouchGate
@testable import TouchGateCore

/// A clock the test moves by hand.
final class TestClock: Clock, @unchecked Sendable {
    private let current: Mutex<Double>

    init(_ start: Double = 1_800_000_000) {
        current = Mutex(start)
    }

    var now: Double { current.withLock { $0 } }

    func advance(by seconds: Double) {
        current.withLock { $0 += seconds }
    }
}

/// A fresh directory for one test's store files, removed when the test ends (its suite has the
/// ``Trait/removesItsFiles`` trait; else when the process exits).
func temporaryStorePath(_ name: String = "touchgate.sqlite") -> String {
    var template = Array("/tmp/touchgate-unit-XXXXXX".utf8CString)
    let directory = String(cString: mkdtemp(&template)!)
    TemporaryFiles.made(directory)
    return directory + "/state/" + name
}

/// Runs `command` (an absolute path and its arguments) and returns its exit status.
///
/// `posix_spawn`, not Foundation's `Process`, whose `run()` can crash in Swift 6.3.1 (see the
/// end-to-end suite's `RunningProcess`).
func runToCompletion(_ command: [String]) -> Int32 {
    let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, command[0], nil, nil, argv, environ) == 0 else { return 127 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
}
