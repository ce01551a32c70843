import Foundation
import Testing
import TouchGateTesting

/// A real fingerprint stack without hardware, shared by the suites of one test process: a private
/// system bus (`dbus-daemon`), polkit answered by python3-dbusmock's `polkitd` template (told to
/// allow every action), and `fprintd` with only libfprint's `virtual_device`, whose socket takes
/// one text command per connection (`SCAN good`, `SCAN bad`, `ERROR 0`).
///
/// Started once, on first use (``shared``), and killed when the test process exits. The finger id
/// `good` is enrolled for ``user`` at start; any other id is a no-match. The test stack
/// `touchgate-fprintd` (`pam_fprintd.so max-tries=1 timeout=10`) reaches it through
/// `DBUS_SYSTEM_BUS_ADDRESS`, which ``environment(for:)`` adds to a test world's runs.
final class FingerprintReader: @unchecked Sendable {
    /// The user whose finger `good` is enrolled: the test worlds' user. fprintd and pam_fprintd
    /// need no passwd entry for it (fprintd keeps prints by name; polkit is the mock).
    static let user = "alice"
    /// What pam_fprintd says when it starts waiting for a finger (its verify has begun).
    static let waitingMessage = "Swipe your right index finger"

    /// The one instance of the test process; the first use starts it (a few seconds: the enrollment).
    static let shared: Result<FingerprintReader, TestFailure> = {
        do {
            return .success(try FingerprintReader())
        } catch let failure as TestFailure {
            return .failure(failure)
        } catch {
            return .failure(TestFailure("\(error)"))
        }
    }()

    /// The shared reader, or the reason it could not start (which fails the test).
    static func start() throws -> FingerprintReader {
        try shared.get()
    }

    let directory: URL
    /// The rig itself, the same type the demo and the bench use.
    let sensor: SimulatedFingerprintSensor
    /// `DBUS_SYSTEM_BUS_ADDRESS` for processes that talk to this fprintd.
    var busAddress: String { sensor.busAddress }
    /// The private system bus's socket (``SimulatedFingerprintSensor/busSocket``).
    var busSocket: String { sensor.busSocket }
    private let lock = NSLock()

    private init() throws {
        directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("touchgate-fprint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        chmod(directory.path, 0o755)
        sensor = SimulatedFingerprintSensor(directory: directory.path)
        Self.registerCleanup(directory.path, sensor)
        do {
            try sensor.start()
            // The test worlds' user, and ``PAMHost``'s account (sudo and pamtester in its namespace).
            for user in [Self.user, PAMHost.user] { try sensor.enroll("good", user: user) }
        } catch {
            throw TestFailure("the simulated fingerprint sensor: \(error.description)")
        }
    }

    /// The environment of a process on this bus: `base` with `DBUS_SYSTEM_BUS_ADDRESS` set.
    func environment(_ base: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        var environment = base
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = busAddress
        return environment
    }

    /// The end of fprintd's log, for a failure's message.
    var fprintdLog: String { sensor.fprintdLog }

    /// Kills fprintd (SIGKILL), as a crash or a stopped service would end it.
    func killFprintd() throws {
        lock.withLock { sensor.killFprintd() }
    }

    /// Makes sure fprintd runs (a test may have killed it), on the same state: the print stays.
    func ensureRunning() throws {
        try lock.withLock {
            guard !sensor.fprintdIsRunning else { return }
            do throws(SimulatedFingerprintSensor.Failure) { try sensor.startFprintd() } catch { throw TestFailure("fprintd: \(error.description)") }
        }
    }

    /// Sends one command to the virtual device (`SCAN good`, `SCAN bad`, `ERROR 0`); retries
    /// while the device is not open (its socket refuses connections until fprintd opens it).
    ///
    /// The virtual device closes its socket whenever a verify ends and opens it for the next; a
    /// verify that starts within a few milliseconds of the last one's end was seen with no socket
    /// listening (`SET_KEEP_ALIVE 1` did not help: the command then waited unread until the verify
    /// ended). So the suites let each `touchgate` process make one verify
    /// (`biometric-tries-per-evaluation` 1) where several scans follow each other.
    func send(_ command: String, timeout: TimeInterval = 10) throws {
        guard sensor.send(command, timeout: timeout) else {
            let exists = FileManager.default.fileExists(atPath: sensor.socketPath)
            throw TestFailure("the virtual device never took '\(command)' (socket file \(exists ? "there" : "gone"))")
        }
    }

    // MARK: - Cleanup at process exit

    nonisolated(unsafe) private static var cleanupDirectory: String?
    nonisolated(unsafe) private static var cleanupSensor: SimulatedFingerprintSensor?

    private static func registerCleanup(_ directory: String, _ sensor: SimulatedFingerprintSensor) {
        cleanupDirectory = directory
        cleanupSensor = sensor
        atexit {
            for pid in FingerprintReader.cleanupSensor?.processes ?? [] { kill(pid, SIGKILL) }
            if let directory = FingerprintReader.cleanupDirectory { try? FileManager.default.removeItem(atPath: directory) }
        }
    }
}

extension TestEnvironment {
    /// A world whose runs reach `reader`'s fprintd, with `alice` enrolled in touchgate through the
    /// pam_matrix stacks and `biometric-service` then set to the real stack `touchgate-fprintd`.
    static func withFingerprintReader(_ reader: FingerprintReader, enroll: Bool = true) throws -> TestEnvironment {
        let world = try TestEnvironment()
        world.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = reader.busAddress
        if enroll {
            try world.enrollWithoutEnabling()
            try world.setConfig("biometric-service", "touchgate-fprintd")
        }
        return world
    }
}
