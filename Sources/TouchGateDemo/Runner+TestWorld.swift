import Glibc
import TouchGate
import TouchGateCLI
import TouchGateSystem
import TouchGateTesting

extension Runner {
    /// `test-world create DIR`: the ``PAMWorld`` of the library, for shell and Python tests.
    func testWorldCreate(_ path: FilePath) -> ExitCode {
        let name = invocation.user ?? "alice"
        let directory = absolutePath(path).string
        let world: PAMWorld
        do {
            world = try PAMWorld(users: [PAMWorld.User(name: name, passcode: name + "-passcode", finger: name + "-finger")],
                                 directory: directory)
        } catch {
            return fail("test-world create: \(error.description.escapedForMessage)",
                        PAMWorld.pamMatrix == nil ? .internalError : .badValue)
        }
        let user = world.users[0]
        if invocation.json {
            writeLine(STDOUT_FILENO, JSONValue.object([
                ("directory", .string(directory)),
                ("environment", .object(world.environment.map { ($0.0, JSONValue.string($0.1)) })),
                ("user", .string(user.name)), ("passcode", .string(user.passcode)), ("finger", .string(user.finger)),
            ]).rendered)
        } else {
            for (variable, value) in world.environment { writeLine(STDOUT_FILENO, "export \(variable)=\(shellQuoted(value))") }
            writeLine(STDOUT_FILENO, "# user \(user.name): passcode \(user.passcode), biometric secret \(user.finger); "
                + "remove with: touchgate test-world remove \(shellQuoted(directory))")
        }
        return .success
    }

    /// `test-world remove DIR`: only a directory `test-world create` made.
    func testWorldRemove(_ path: FilePath) -> ExitCode {
        do {
            try PAMWorld.remove(directory: absolutePath(path).string)
        } catch {
            return fail("test-world remove: \(error.description.escapedForMessage)", .badValue)
        }
        return .success
    }

    /// `test-world sensor DIR`: the simulated sensor, in the foreground until a signal.
    func testWorldSensor(_ path: FilePath) -> ExitCode {
        if let missing = SimulatedFingerprintSensor.missingPart() {
            return fail("test-world sensor: \(missing) is not installed (scripts/setup installs it)", .internalError)
        }
        // Blocked before anything starts, so a signal during the start-up still stops everything.
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let sensor = SimulatedFingerprintSensor(directory: absolutePath(path).string)
        defer { sensor.stop() }
        do {
            try sensor.start()
            try sensor.enroll("good", user: invocation.user ?? "alice")
        } catch {
            return fail("test-world sensor: \(error.description.escapedForMessage)", .internalError)
        }
        writeLine(STDOUT_FILENO, "export DBUS_SYSTEM_BUS_ADDRESS=\(shellQuoted(sensor.busAddress))")
        writeLine(STDOUT_FILENO, "export TOUCHGATE_SENSOR_SOCKET=\(shellQuoted(sensor.socketPath))")
        writeLine(STDOUT_FILENO, "ready")
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        return .success
    }

    /// `test-world scan DIR COMMAND`.
    func testWorldScan(_ path: FilePath, _ command: String) -> ExitCode {
        let sensor = SimulatedFingerprintSensor(directory: absolutePath(path).string)
        guard sensor.send(command, timeout: 20) else {
            return fail("test-world scan: the virtual device in \(path.string.escapedForMessage) never took '\(command.escapedForMessage)'",
                        .internalError)
        }
        return .success
    }
}
