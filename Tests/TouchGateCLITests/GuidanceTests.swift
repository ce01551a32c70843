import Foundation
import Testing
@testable import TouchGateCLI

/// What the CLI says when a command cannot go on, tried as a new user would: a typo, no terminal,
/// no fingerprint reader. Each message says why and what to do, on one line.
@Suite struct GuidanceTests {
    @Test(arguments: [("statsu", "status"), ("stauts", "status"), ("enrol", "enroll"), ("auht", "auth"), ("gaet", "gate")])
    func anUnknownCommandSuggestsTheNearestOne(typed: String, meant: String) throws {
        let world = try TestEnvironment()
        let result = try world.run([typed])
        #expect(result.status == 64, "\(result)")
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first == "touchgate: unknown command '\(typed)'; did you mean '\(meant)'? (see touchgate --help)", "\(result)")
    }

    @Test func aWordFarFromEveryCommandSuggestsNothing() throws {
        let result = try TestEnvironment().run(["frobnicate"])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.hasPrefix("touchgate: unknown command 'frobnicate' (see touchgate --help)\n"), "\(result)")
    }

    /// The test's children have no controlling terminal, so a prompt cannot be shown.
    @Test func authWithoutATerminalPointsAtDashS() throws {
        let world = try TestEnvironment()
        let result = try world.run(["auth"], input: "")
        #expect(result.status == 11, "\(result)")
        #expect(result.stderr == "touchgate: Authentication needs interaction, which is not allowed here: there is no "
                + "terminal to ask on; pass -S to read the answers from standard input (notInteractive)\n", "\(result)")
        // With -S it asks on standard input instead.
        let scripted = try world.run(["-S", "auth"], input: "alice-passcode\n")
        #expect(scripted.status == 0, "\(scripted)")
    }

    // MARK: - enroll with no reader

    /// `touchgate enroll` (the passcode first) in `world`, with -S.
    static func enroll(_ world: TestEnvironment, passcode: String = "alice-passcode") throws -> RunResult {
        try world.run(["-S", "enroll"], input: passcode + "\n", timeout: 30)
    }

    @Test func enrollSaysFprintdIsNotRunning() throws {
        let world = try TestEnvironment()
        try world.setConfig("biometric-service", "touchgate-fprintd")
        world.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(world.directory.path)/no-bus"
        let result = try Self.enroll(world)
        #expect(result.status == 6, "\(result)")
        #expect(result.stderr.hasSuffix("touchgate: The biometric factor is not available: fprintd is not running, or the system bus "
                + "cannot reach it. (biometryNotAvailable)\n"), "\(result)")
        // The header line of the evaluation comes before the outcome.
        let header = result.stderr.range(of: "touchgate: enroll the biometric factor")
        let outcome = result.stderr.range(of: "(biometryNotAvailable)")
        #expect(header != nil && outcome != nil && header!.lowerBound < outcome!.lowerBound, "\(result)")
    }

    @Test func enrollSaysNoFingerIsEnrolledInFprintdThenThatTheModuleIsMissing() throws {
        let reader = try FingerprintReader.shared.get()
        try reader.ensureRunning()
        let world = try TestEnvironment()
        world.user = "bob"
        world.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = reader.busAddress
        try world.setConfig("biometric-service", "touchgate-fprintd")
        let none = try Self.enroll(world, passcode: "bob-passcode")
        #expect(none.status == 6, "\(none)")
        #expect(none.stderr.contains("no finger is enrolled in fprintd for bob (fprintd-enroll enrolls one). (biometryNotAvailable)"), "\(none)")

        // alice has her finger in fprintd; the stack names a module that is not there.
        let alice = try TestEnvironment()
        alice.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = reader.busAddress
        try "auth required /nonexistent/security/pam_fprintd.so max-tries=1 timeout=10\n"
            .write(toFile: alice.pamDirectory.appendingPathComponent("touchgate-nomodule").path, atomically: true, encoding: .utf8)
        try alice.setConfig("biometric-service", "touchgate-nomodule")
        let missing = try Self.enroll(alice)
        #expect(missing.status == 6, "\(missing)")
        #expect(missing.stderr.contains("the PAM module /nonexistent/security/pam_fprintd.so is not installed (libpam-fprintd). "
                + "(biometryNotAvailable)"), "\(missing)")
    }

    /// A real fprintd that finds no device (a private system bus, polkit answered by
    /// python3-dbusmock, and fprintd allowed no driver).
    @Test func enrollSaysFprintdFindsNoDevice() throws {
        let world = try TestEnvironment()
        let directory = world.directory.appendingPathComponent("nodevice")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("state"), withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("bus").path
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>system</type><listen>unix:path=\(socket)</listen><auth>EXTERNAL</auth>
            <policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy>
            </busconfig>
            """.write(toFile: directory.appendingPathComponent("bus.conf").path, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(socket)"
        var daemons: [RunningProcess] = []
        defer { for daemon in daemons { daemon.signal(SIGKILL) } }
        daemons.append(try RunningProcess(["/usr/bin/dbus-daemon", "--config-file=\(directory.path)/bus.conf", "--nofork", "--nopidfile"],
                                          environment: environment, newSession: true))
        try gateEventually("the private bus") { FileManager.default.fileExists(atPath: socket) }
        daemons.append(try RunningProcess(["/usr/bin/python3", "-m", "dbusmock", "--system", "--template", "polkitd"],
                                          environment: environment, newSession: true))
        func call(_ arguments: [String]) -> Int32? {
            (try? RunningProcess.run(["/usr/bin/gdbus", "call", "--system"] + arguments, environment: environment, timeout: 10))?.status
        }
        try gateEventually("the polkit mock") {
            call(["-d", "org.freedesktop.PolicyKit1", "-o", "/org/freedesktop/PolicyKit1/Authority",
                  "-m", "org.freedesktop.DBus.Mock.AllowUnknown", "true"]) == 0
        }
        var fprintd = environment
        fprintd["FP_DRIVERS_WHITELIST"] = "touchgate_no_such_driver"
        fprintd["STATE_DIRECTORY"] = directory.appendingPathComponent("state").path
        daemons.append(try RunningProcess(["/usr/libexec/fprintd", "-t"], environment: fprintd, newSession: true))
        try gateEventually("fprintd") {
            call(["-d", "net.reactivated.Fprint", "-o", "/net/reactivated/Fprint/Manager",
                  "-m", "net.reactivated.Fprint.Manager.GetDevices"]) == 0
        }
        world.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(socket)"
        try world.setConfig("biometric-service", "touchgate-fprintd")
        let result = try Self.enroll(world)
        #expect(result.status == 6, "\(result)")
        #expect(result.stderr.contains("fprintd finds no fingerprint reader. (biometryNotAvailable)"), "\(result)")
    }
}
