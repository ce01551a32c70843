import Synchronization
import Testing
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGateSystem
@testable import TouchGateTerminal

/// The self-pipe that wakes a prompt: the first interruption latches and stays, for every thread
/// that reads it; ``Interrupter/clear()`` forgets it.
@Suite struct InterrupterTests {
    @Test func theFirstInterruptionLatchesUntilCleared() {
        let interrupter = Interrupter()
        #expect(interrupter.pending == nil)
        interrupter.post(.application)
        interrupter.post(.user)
        #expect(interrupter.pending == .application)
        #expect(interrupter.pending == .application)
        interrupter.clear()
        #expect(interrupter.pending == nil)
        interrupter.post(.system)
        #expect(interrupter.pending == .system)
    }

    /// Threads that post and read at once all see one interruption: the one that was drained
    /// first, never a second one replacing it.
    @Test func threadsThatReadAtOnceSeeOneInterruption() {
        for _ in 0..<50 {
            let interrupter = Interrupter()
            let seen = Mutex<Set<Interruption>>([])
            let readers = (0..<4).map { index in
                HelperThread {
                    interrupter.post(index.isMultiple(of: 2) ? .user : .application)
                    var latest: Interruption?
                    while latest == nil { latest = interrupter.pending }
                    if let latest { seen.withLock { _ = $0.insert(latest) } }
                }
            }
            for reader in readers { reader.join() }
            #expect(seen.withLock { $0.count } == 1)
            #expect(seen.withLock { $0 }.contains(interrupter.pending!))
        }
    }
}
