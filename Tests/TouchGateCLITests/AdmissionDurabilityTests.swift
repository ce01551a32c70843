import Foundation
import Testing

/// The write-ahead count is on the disk before PAM sees a credential: a power cut during the
/// check cannot take a counted attempt back. Watched from inside the process by an `LD_PRELOAD`
/// shim (built here with the toolchain's `clang`) that logs, thread by thread, the `fdatasync`
/// and `fsync` calls SQLite makes and the moment `pam_authenticate` starts, and that can make the
/// log's sync fail.
@Suite(.serialized) struct AdmissionDurabilityTests {
    static let shimSource = #"""
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <errno.h>
        #include <fcntl.h>
        #include <limits.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <unistd.h>

        static int logFile = -1;

        /* Only touchgate itself logs, not the children PAM starts (they inherit LD_PRELOAD). */
        __attribute__((constructor)) static void start(void) {
            const char *log = getenv("TOUCHGATE_TEST_SYNC_LOG");
            char exe[PATH_MAX];
            ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
            if (!log || length <= 0) return;
            exe[length] = 0;
            if (!strstr(exe, "touchgate")) return;
            logFile = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        }

        /* The file `fd` is open on, into `path` (PATH_MAX bytes); empty when unknown. */
        static void pathOf(int fd, char *path) {
            char link[64];
            snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
            ssize_t length = readlink(link, path, PATH_MAX - 1);
            path[length > 0 ? length : 0] = 0;
        }

        static void note(const char *event, int fd) {
            if (logFile < 0) return;
            char path[PATH_MAX] = "-", line[PATH_MAX + 96];
            if (fd >= 0) pathOf(fd, path);
            int length = snprintf(line, sizeof line, "%d %s %s\n", gettid(), event, path);
            write(logFile, line, length);
        }

        static int failsLog(int fd) {
            if (logFile < 0 || !getenv("TOUCHGATE_TEST_FAIL_LOG_SYNC")) return 0;
            char path[PATH_MAX];
            pathOf(fd, path);
            size_t length = strlen(path);
            return length > 4 && strcmp(path + length - 4, "-wal") == 0;
        }

        /* One sync call, logged once it returns, or failed with EIO when the test asks so. */
        static int observedSync(const char *name, const char *failedName, int (**real)(int), int fd) {
            if (!*real) *real = (int (*)(int))dlsym(RTLD_NEXT, name);
            if (failsLog(fd)) { note(failedName, fd); errno = EIO; return -1; }
            int result = (*real)(fd);
            note(name, fd);
            return result;
        }

        int fdatasync(int fd) {
            static int (*real)(int);
            return observedSync("fdatasync", "fdatasync-failed", &real, fd);
        }

        int fsync(int fd) {
            static int (*real)(int);
            return observedSync("fsync", "fsync-failed", &real, fd);
        }

        int pam_authenticate(void *handle, int flags) {
            static int (*real)(void *, int);
            if (!real) real = (int (*)(void *, int))dlsym(RTLD_NEXT, "pam_authenticate");
            note("pam_authenticate", -1);
            return real(handle, flags);
        }
        """#

    /// One logged call: the thread, what it was, and the file it concerned (`-` for none).
    struct Event: Equatable {
        let thread: String
        let name: String
        let path: String
    }

    /// A world whose runs load the shim, and the log it writes.
    static func world() throws -> (TestEnvironment, log: URL, scratch: URL) {
        let clang = try #require(Toolchain.clang, "clang is beside swiftc")
        let scratch = try Toolchain.scratchDirectory("sync-shim")
        let source = scratch.appendingPathComponent("shim.c")
        try Data(shimSource.utf8).write(to: source)
        let shim = scratch.appendingPathComponent("shim.so").path
        let build = try TestEnvironment.execute(clang, ["-O2", "-shared", "-fPIC", source.path, "-o", shim, "-ldl"],
                                                input: nil, environment: ProcessInfo.processInfo.environment, timeout: 120)
        guard build.status == 0 else { throw TestFailure("the shim did not build: \(build)") }
        let world = try TestEnvironment()
        let log = scratch.appendingPathComponent("sync.log")
        world.extraEnvironment = ["LD_PRELOAD": shim, "TOUCHGATE_TEST_SYNC_LOG": log.path]
        return (world, log, scratch)
    }

    static func events(_ log: URL) -> [Event] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 2).map(String.init)
            return fields.count == 3 ? Event(thread: fields[0], name: fields[1], path: fields[2]) : nil
        }
    }

    @Test func theCountIsOnTheDiskBeforePAMSeesTheCredential() throws {
        let (world, log, scratch) = try Self.world()
        defer { try? FileManager.default.removeItem(at: scratch) }
        // A first run creates the store; the second is an ordinary one.
        for _ in 0..<2 {
            try? FileManager.default.removeItem(at: log)
            let result = try world.run(["-S", "auth"], input: "alice-passcode\n")
            #expect(result.status == 0, "\(result)")
            let events = Self.events(log)
            let check = try #require(events.firstIndex { $0.name == "pam_authenticate" }, "\(events)")
            let before = events[..<check].filter { $0.thread == events[check].thread }
            // The log that holds the admission, and the directory that holds the log.
            #expect(before.contains { $0.name == "fdatasync" && $0.path == world.storePath + "-wal" }, "\(events)")
            let directory = URL(fileURLWithPath: world.storePath).deletingLastPathComponent().path
            #expect(before.contains { ["fdatasync", "fsync"].contains($0.name) && $0.path == directory }, "\(events)")
        }
        #expect(world.calls("touchgate") == 2)
    }

    @Test func aLogThatCannotBeSyncedStopsTheCheckBeforePAM() throws {
        let (world, log, scratch) = try Self.world()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let first = try world.run(["-S", "auth"], input: "alice-passcode\n")
        #expect(first.status == 0, "\(first)")
        world.extraEnvironment["TOUCHGATE_TEST_FAIL_LOG_SYNC"] = "1"
        try? FileManager.default.removeItem(at: log)
        for arguments in [["-S", "auth"], ["-S", "auth", "--policy", "biometrics"]] {
            let result = try world.run(arguments, input: "alice-passcode\n")
            #expect(result.status == 74, "\(arguments): \(result)")
            // The passcode's prompt comes first (the try is admitted once it is answered); then
            // the error, in one line.
            let errors = result.stderrLines.filter { !$0.hasPrefix("Password:") && !$0.hasPrefix("touchgate: authenticate (") }
            #expect(errors.count == 1, "one line: \(result)")
            #expect(result.stderr.contains(world.storePath), "names the store: \(result)")
            #expect(!result.stderr.contains("alice-passcode"), "\(result)")
        }
        let events = Self.events(log)
        #expect(events.contains { $0.name == "fdatasync-failed" }, "the fault was injected: \(events)")
        #expect(!events.contains { $0.name == "pam_authenticate" }, "\(events)")
        #expect(world.calls("touchgate") == 1)
        world.extraEnvironment["TOUCHGATE_TEST_FAIL_LOG_SYNC"] = nil
        let after = try world.run(["-S", "auth"], input: "alice-passcode\n")
        #expect(after.status == 0, "the store is intact once the disk is: \(after)")
        #expect(try world.sqlite("PRAGMA integrity_check") == "ok")
    }
}
