import Foundation
import Testing

/// A closed lid (logind's `LidClosed`, from dbusmock's logind on a private system bus): the
/// reader under it is not waited for, and a bus that cannot be reached changes nothing.
@Suite struct LidTests {
    static let biometric = "touchgate-biometric"

    private func setLid(_ bus: LogindBus, closed: Bool, adding: Bool = false) throws {
        let method = adding ? "org.freedesktop.DBus.Mock.AddProperty" : "org.freedesktop.DBus.Properties.Set"
        let result = try bus.gdbus(["call", "--system", "-d", "org.freedesktop.login1", "-o", "/org/freedesktop/login1", "-m", method,
                                    "org.freedesktop.login1.Manager", "LidClosed", closed ? "<true>" : "<false>"])
        guard result.status == 0 else { throw TestFailure("set LidClosed: \(result)") }
    }

    @Test func aClosedLidGoesStraightToThePasscodeAndAnOpenOrUnreachableOneTriesTheReader() throws {
        let bus = try LogindBus()
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        world.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        try setLid(bus, closed: false, adding: true)
        let open = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        CoreExpect.outcome(open, "success", policy: "biometrics")
        let calls = world.calls(Self.biometric)
        try setLid(bus, closed: true)
        let closed = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        CoreExpect.outcome(closed, "biometryNotAvailable", policy: "biometrics")
        #expect(closed.json?["message"] as? String == "The lid is closed: the biometric factor is not available.", "\(closed)")
        let deviceOwner = try world.run(["-S", "--json", "auth"], input: "alice-passcode\n")
        CoreExpect.outcome(deviceOwner, "success", policy: "device-owner")
        #expect(world.calls(Self.biometric) == calls, "the reader was not tried")
        // No bus at all: the reader is tried as before.
        bus.stop()
        let unreachable = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "alice-finger\n")
        CoreExpect.outcome(unreachable, "success", policy: "biometrics")
        #expect(world.calls(Self.biometric) == calls + 1)
    }

    /// pam_touchgate.so under a local terminal login (pamtester with PAM_TTY, as sudo runs it),
    /// the bus bind-mounted at the system bus's path: a reader stack that would wait 30 s is not
    /// called while the lid is closed, and the password prompt comes at once.
    @Test func thePAMModuleDoesNotWaitForTheReaderUnderAClosedLid() throws {
        let bus = try LogindBus()
        try setLid(bus, closed: true, adding: true)
        let host = try PAMHost()
        try host.biometricStack("pam_exec.so quiet /bin/sleep 30")
        try host.passcodeSucceededInThisBoot()
        let started = Date()
        let login = try host.terminal(["/bin/bash", "-c", "exec pamtester -I tty=\"$(tty)\" tgtest \(PAMHost.user) authenticate"],
                                      bus: bus.directory.path + "/bus")
        try login.waitFor("Password:")
        #expect(Date().timeIntervalSince(started) < 10, "the prompt came at once")
        login.type(PAMHost.password + "\r")
        #expect(try login.wait() == 0, "\(login.screen.debugDescription)")
        #expect(host.calls("biometric").isEmpty, "\(host.calls("biometric"))")
    }
}
