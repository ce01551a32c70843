import Foundation
import Testing

/// Another local account (a uid of its own, run through `setpriv`) doing what issue 30 tried as
/// `nobody`: it watches `/proc` for a starting `touchgate shell`, binds every name the owner's
/// channel could have (the abstract `@touchgate-shell/UID/PID-START` it once had, and the path in
/// each channel directory it can reach), and answers `ok` to every `lock`, at once.
///
/// Only owners whose command line names the world's directory are squatted (`OwnerHarness`'s
/// shells read their rc file from there): other tests' owners, running meanwhile, are left alone.
///
/// It writes one line per owner it saw to its log: `PID abstract=BOUND path=BOUND…`, and one line
/// `answered` per `ok` it sent.
final class ChannelSquatter {
    static let uid: uid_t = 4244
    let log: String
    private let process: RunningProcess

    /// - Parameters:
    ///   - victim: the uid whose owners it squats.
    ///   - directories: channel directories whose paths it tries too.
    init(world: TestEnvironment, victim: uid_t = geteuid(), directories: [String]) throws {
        let base = world.directory.appendingPathComponent("squatter")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        chmod(base.path, 0o777)
        log = base.appendingPathComponent("log").path
        let script = base.appendingPathComponent("squat.py").path
        let paths = directories.map { "'\($0)'" }.joined(separator: ", ")
        try """
            import os, selectors, socket, time
            log = open('\(log)', 'a', buffering=1)
            seen, listeners, sel = set(), [], selectors.DefaultSelector()
            def listen(address):
                s = socket.socket(socket.AF_UNIX)
                try:
                    s.bind(address)
                    s.listen(16)
                except OSError:
                    s.close()
                    return False
                s.setblocking(False)
                sel.register(s, selectors.EVENT_READ)
                return True
            # A process that is not an owner 2 s after it was first seen (a fork execs at once) is
            # not read again: the loop stays cheap on a loaded machine.
            first = {}
            while True:
                now = time.monotonic()
                for pid in os.listdir('/proc'):
                    if not pid.isdigit() or pid in seen or now - first.setdefault(pid, now) > 2:
                        continue
                    try:
                        argv = open('/proc/%s/cmdline' % pid, 'rb').read().split(b'\\0')
                        start = open('/proc/%s/stat' % pid).read().rsplit(')', 1)[1].split()[19]
                    except OSError:
                        continue
                    # Only this world's owners (their command lines name its directory): the
                    # owners of other tests running meanwhile are left alone.
                    if not argv or not argv[0].endswith(b'touchgate') or b'shell' not in argv \\
                            or not any(b'\(world.directory.path)' in part for part in argv):
                        continue
                    seen.add(pid)
                    name = '%s-%s' % (pid, start)
                    bound = ['abstract=%s' % listen('\\0touchgate-shell/\(victim)/' + name)]
                    for directory in [\(paths)]:
                        bound.append('%s=%s' % (directory, listen(directory + '/' + name)))
                    log.write('%s %s\\n' % (pid, ' '.join(bound)))
                for key, _ in sel.select(timeout=0.005):
                    try:
                        client, _ = key.fileobj.accept()
                        client.settimeout(1)
                        client.recv(16)
                        client.send(b'ok\\n')
                        client.close()
                        log.write('answered\\n')
                    except OSError:
                        pass
            """.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o644)
        process = try RunningProcess(["/usr/bin/setpriv", "--reuid", "\(Self.uid)", "--regid", "\(Self.uid)", "--clear-groups",
                                      "/usr/bin/python3", script], environment: ["PATH": "/usr/bin:/bin"])
    }

    /// The squatter's log so far.
    var lines: [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Waits until the squatter saw owner `pid`; returns its line.
    func waitForOwner(_ pid: pid_t) throws -> String {
        var line = ""
        try gateEventually("the squatter to see owner \(pid): \(lines) \(process.errorsSoFar)") {
            guard process.isRunning else { throw TestFailure("the squatter ended: \(process.errorsSoFar)") }
            line = lines.first { $0.hasPrefix("\(pid) ") } ?? ""
            return !line.isEmpty
        }
        return line
    }

    deinit { process.signal(SIGKILL) }
}
