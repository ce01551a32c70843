import Glibc
import Synchronization
@testable import TouchGate

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

/// A fresh directory for one test's store files.
func temporaryStorePath(_ name: String = "touchgate.sqlite") -> String {
    var template = Array("/tmp/touchgate-unit-XXXXXX".utf8CString)
    let directory = String(cString: mkdtemp(&template)!)
    return directory + "/state/" + name
}
