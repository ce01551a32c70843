import Glibc
import TouchGate
import TouchGateTesting

extension Runner {
    /// `test-world create DIR`: the ``PAMWorld`` of the library, for shell and Python tests.
    func testWorldCreate(_ path: String) -> ExitCode {
        let name = invocation.user ?? "alice"
        let directory = absolute(path)
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
    func testWorldRemove(_ path: String) -> ExitCode {
        do {
            try PAMWorld.remove(directory: absolute(path))
        } catch {
            return fail("test-world remove: \(error.description.escapedForMessage)", .badValue)
        }
        return .success
    }

    /// `path` made absolute against the working directory.
    private func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/" + path
    }
}
