// swift-tools-version:6.0
import Foundation
import PackageDescription

// With --static-swift-stdlib, resolve the toolchain's -lstdc++ to GCC's static archives
// (Linker/StaticCXX/README.md): the binary then starts without loading libstdc++ and libgcc_s.
let staticCXXLibraryPath = Context.packageDirectory + "/Linker/StaticCXX"
// Resolve -lsqlite3 to Debian's static libsqlite3.a (Linker/StaticSQLite/README.md), unless the
// build is asked to load the system's shared library: TOUCHGATE_SHARED_SQLITE=1 swift build ...
let sqliteLibraryPaths = Context.environment["TOUCHGATE_SHARED_SQLITE"] == "1"
    ? [] : ["-L", Context.packageDirectory + "/Linker/StaticSQLite"]
// The toolchain's static-stdlib link exports every public symbol of the executable (for crash
// backtraces symbolicated through dladdr, which touchgate does not ship); exporting none keeps
// PAM modules from binding to touchgate's own symbols and the dynamic loader's tables small.
let exportNothing = ["-Xlinker", "--no-export-dynamic"]
// Debian's hardening link flags (dpkg-buildflags' bindnow and relro; lintian's hardening-no-bindnow):
// every symbol bound at start and the relocated tables read-only after it, so a write through a
// bad pointer cannot redirect a library call. PAMModule/build links the module the same way.
let hardeningLinkerFlags = ["-Xlinker", "-z", "-Xlinker", "now", "-Xlinker", "-z", "-Xlinker", "relro"]
// The toolchain's lld, for its packed relative relocations (DT_RELR, read by glibc 2.36 and later):
// a position-independent binary of this size has ~30,000 of them, 714 KB of RELA entries the
// loader reads at every start, 6 KB as RELR. gold, the toolchain's default, cannot write them.
let compactRelocationLinkerFlags = ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"]
// How the executables (touchgate, touchgate-watch, touchgate-demo, touchgate-pam-helper) link: the same SQLite, C++ runtime and exports.
// libvterm (`touchgate shell`'s screen model) resolves to Debian's static archive (Linker/StaticVTerm/README.md).
let staticVTermLibraryPath = Context.packageDirectory + "/Linker/StaticVTerm"
let executableLinkerFlags = sqliteLibraryPaths + ["-L", staticCXXLibraryPath, "-L", staticVTermLibraryPath] + exportNothing
    + hardeningLinkerFlags + compactRelocationLinkerFlags
// libdbus-1's headers (libdbus-1-dev): what `pkg-config --cflags dbus-1` names, found here rather
// than through the CDBus target's `pkgConfig:`, because SwiftPM would then put pkg-config's
// `-L/usr/lib/<triplet>` ahead of Linker/StaticSQLite and link the shared libsqlite3 after all.
let dbusIncludeFlags: [String] = {
    var directories = ["/usr/include/dbus-1.0"]
    let lib = "/usr/lib"
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? []
    where FileManager.default.fileExists(atPath: "\(lib)/\(entry)/dbus-1.0/include/dbus/dbus-arch-deps.h") {
        directories.append("\(lib)/\(entry)/dbus-1.0/include")
    }
    return directories.flatMap { ["-Xcc", "-I" + $0] }
}()

let package = Package(
    name: "touchgate",
    products: [
        .library(name: "TouchGate", targets: ["TouchGate"]),
        // For tests of lockout counting against real PAM: a private PAM world, scripted prompts, a settable clock.
        .library(name: "TouchGateTesting", targets: ["TouchGateTesting"]),
        .executable(name: "touchgate", targets: ["touchgate"]),
        // `touchgate watch` runs this (installed in PREFIX/libexec/touchgate/): only it loads libdbus-1.
        .executable(name: "touchgate-watch", targets: ["touchgate-watch"]),
        // `touchgate demo` and `touchgate test-world` run this (installed beside touchgate-watch):
        // only it carries the test kit (TouchGateTesting), not the `touchgate` every hook starts.
        .executable(name: "touchgate-demo", targets: ["touchgate-demo"]),
        // The PAM module's helper. The module itself, pam_touchgate.so, is C compiled by
        // PAMModule/build (not by swiftc, which links a Swift image constructor into everything).
        .executable(name: "touchgate-pam-helper", targets: ["touchgate-pam-helper"]),
    ],
    targets: [
        .systemLibrary(name: "CPAM", path: "Sources/CPAM"),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        // libdbus-1, a shared library like libpam: `touchgate watch` talks to logind on the system
        // bus. Its include directories are `dbusIncludeFlags` (above). Only `touchgate-watch`
        // links it, so the processes the shell hooks and tmux start do not load it.
        .systemLibrary(name: "CDBus", path: "Sources/CDBus", providers: [.apt(["libdbus-1-dev"])]),
        // Links the system's libsqlite3 (a build-time tool): it applies the migrations to an
        // in-memory database to embed the schema a store must have.
        .executableTarget(name: "embed-migrations", dependencies: ["CSQLite", "TouchGateSystem"], path: "Sources/embed-migrations"),
        .plugin(
            name: "EmbedMigrations",
            capability: .buildTool(),
            dependencies: ["embed-migrations"],
            path: "Plugins/EmbedMigrations"
        ),
        // The system toolkit in swift-system's shape: Errno and the one retry-on-EINTR rule, the
        // child process, the self-pipe, the file reader, FilePath. Glibc only; no touchgate module.
        .target(name: "TouchGateSystem", path: "Sources/TouchGateSystem"),
        // The layers, each a module that sees only what it names (as swift-nio's NIOTLS sees NIOCore
        // alone): docs/design.md draws the graph, ModuleGraphTests holds it to this file.
        // The machines and the rules: pure, no import at all (no Glibc, no Foundation, no C module).
        .target(name: "TouchGateCore", path: "Sources/TouchGateCore"),
        // The SQLite store: the connection, the migrations (embedded by the plugin), the queries.
        .target(name: "TouchGateStore", dependencies: ["TouchGateCore", "TouchGateSystem", "CSQLite"],
                path: "Sources/TouchGateStore", plugins: ["EmbedMigrations"]),
        // The terminal: the prompt sources, the gate's cover, the signal relay.
        .target(name: "TouchGateTerminal", dependencies: ["TouchGateCore", "TouchGateSystem"],
                path: "Sources/TouchGateTerminal"),
        // libpam: the transaction, the conversation, the credential checks and the biometric worker.
        .target(name: "TouchGatePAM", dependencies: ["TouchGateCore", "TouchGateSystem", "TouchGateTerminal", "CPAM"],
                path: "Sources/TouchGatePAM"),
        // The application: AuthContext, the use cases and their ports, the PAM helper's logic.
        .target(
            name: "TouchGate",
            dependencies: ["TouchGateCore", "TouchGateSystem", "TouchGateStore", "TouchGateTerminal", "TouchGatePAM"],
            path: "Sources/TouchGate"
        ),
        // The watcher: its loop and bus I/O (logind over libdbus-1) and, internal beside the loop, its
        // decisions (WatchStateMachine, pure: it imports the core alone); what it does to the sessions
        // is TouchGate's WatchSessions. Neither it nor touchgate-watch links TouchGateCLI.
        .target(
            name: "TouchGateWatch",
            dependencies: ["TouchGate", "TouchGateCore", "TouchGateSystem", "CDBus"],
            path: "Sources/TouchGateWatch",
            swiftSettings: [.unsafeFlags(dbusIncludeFlags)]
        ),
        .target(name: "TouchGateTesting", dependencies: ["TouchGate", "TouchGateSystem"], path: "Sources/TouchGateTesting"),
        // libvterm: the screen of the program `touchgate shell` runs, drawn back after an unlock.
        .systemLibrary(name: "CVTerm", path: "Sources/CVTerm", providers: [.apt(["libvterm-dev"])]),
        // `touchgate shell`'s I/O: the pseudo-terminal, the screen model (libvterm) and the loop; its
        // decisions are ShellOwnerStateMachine, internal beside the loop (pure: it imports the core alone).
        .target(name: "TouchGateOwner", dependencies: ["TouchGate", "TouchGateCore", "TouchGateSystem", "CVTerm"],
                path: "Sources/TouchGateOwner"),
        // The command-line engine, in swift-argument-parser's shape: the specs of commands, options
        // and arguments, the parser, and the help, man page sections and shell completions rendered
        // from a spec table. It knows no command of touchgate's (CommandTable declares them) and
        // sees only the core (UsageError, ExitCode).
        .target(name: "TouchGateArguments", dependencies: ["TouchGateCore"], path: "Sources/TouchGateArguments"),
        .target(name: "TouchGateCLI", dependencies: ["TouchGate", "TouchGateArguments", "TouchGateSystem", "TouchGateOwner"],
                path: "Sources/TouchGateCLI", plugins: ["EmbedMigrations"]),
        // The demo and the test world (`touchgate demo`, `touchgate test-world`): the CLI's
        // parser and runner with the test kit. Only `touchgate-demo` links it.
        .target(name: "TouchGateDemo", dependencies: ["TouchGate", "TouchGateCLI", "TouchGateSystem", "TouchGateTesting"],
                path: "Sources/TouchGateDemo"),
        // `prctl(PR_SET_DUMPABLE)` for `main`: Swift cannot call the variadic `prctl` itself.
        .target(name: "CProcessControl", path: "Sources/CProcessControl"),
        .executableTarget(
            name: "touchgate",
            dependencies: ["TouchGateCLI", "CProcessControl"],
            path: "Sources/touchgate",
            linkerSettings: [.unsafeFlags(executableLinkerFlags)]
        ),
        // `touchgate watch`'s own executable: `touchgate` execs it with the same arguments.
        .executableTarget(
            name: "touchgate-watch",
            dependencies: ["TouchGate", "TouchGateWatch"],
            path: "Sources/touchgate-watch",
            linkerSettings: [.unsafeFlags(executableLinkerFlags)]
        ),
        // `touchgate demo`'s and `touchgate test-world`'s own executable: `touchgate` execs it with
        // the same arguments (installed in PREFIX/libexec/touchgate/).
        .executableTarget(
            name: "touchgate-demo",
            dependencies: ["TouchGateDemo", "TouchGateCLI", "CProcessControl"],
            path: "Sources/touchgate-demo",
            linkerSettings: [.unsafeFlags(executableLinkerFlags)]
        ),
        // The module's helper (installed in PREFIX/libexec/touchgate/): the evaluation, the
        // ledger and the terminal, in a process of its own.
        .executableTarget(
            name: "touchgate-pam-helper",
            dependencies: ["TouchGate", "TouchGateSystem", "CProcessControl"],
            path: "Sources/touchgate-pam-helper",
            linkerSettings: [.unsafeFlags(executableLinkerFlags)],
            plugins: ["EmbedMigrations"]
        ),
        // Compiles PAMModule/pam_touchgate.c into the test build (scripts/build does the release).
        .plugin(name: "BuildPAMModule", capability: .buildTool(), path: "Plugins/BuildPAMModule"),
        // What both test targets share (a seeded generator); not part of any product.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "TouchGateTests", dependencies: [
            "TouchGate",
            "TouchGateCore",
            "TouchGateStore",
            "TouchGateTerminal",
            "TouchGatePAM",
            "TouchGateSystem",
            "TestSupport",
        ], path: "Tests/TouchGateTests"),
        .testTarget(name: "TouchGateSystemTests", dependencies: ["TouchGateSystem", "TestSupport"], path: "Tests/TouchGateSystemTests"),
        // The screen model of `touchgate shell` (TouchGateOwner's InnerScreen) against libvterm fed every
        // byte, and the owner's ShellOwnerStateMachine.
        .testTarget(name: "TouchGateOwnerTests", dependencies: ["TouchGateOwner", "TouchGateCore", "CVTerm", "TestSupport"],
                    path: "Tests/TouchGateOwnerTests"),
        // The watcher's WatchStateMachine (internal to TouchGateWatch, whose libdbus-1 headers it must see).
        .testTarget(name: "TouchGateWatchTests", dependencies: ["TouchGateWatch", "TouchGateCore"],
                    path: "Tests/TouchGateWatchTests", swiftSettings: [.unsafeFlags(dbusIncludeFlags)]),
        // docs/testing.md's Swift example, built and run with the suite (a separate package would
        // build touchgate a second time).
        .testTarget(name: "ExampleTests", dependencies: ["TouchGate", "TouchGateTesting"], path: "examples/swift"),
        // The engine on small tables of its own, apart from touchgate's.
        .testTarget(name: "TouchGateArgumentsTests", dependencies: ["TouchGateArguments", "TouchGateCore"],
                    path: "Tests/TouchGateArgumentsTests"),
        .testTarget(
            name: "TouchGateCLITests", dependencies: ["TouchGateCLI", "TouchGateArguments", "TouchGate", "TouchGateSystem", "TouchGateTesting", "TestSupport"],
            path: "Tests/TouchGateCLITests", plugins: ["BuildPAMModule"]),
    ]
)
