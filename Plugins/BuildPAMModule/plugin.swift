import Foundation
import PackagePlugin

/// Builds `pam_touchgate.so` with `PAMModule/build` (the system's C compiler) for the end-to-end
/// tests, and tells them where it is (`BuiltPAMModule.path`), so `swift build --build-tests`
/// produces the module the tests load into sudo, su and pamtester.
@main
struct BuildPAMModule: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let directory = context.package.directoryURL.appending(path: "PAMModule")
        let inputs = ["build", "pam_touchgate.c", "pam_touchgate.h"].map { directory.appending(path: $0) }
        let module = context.pluginWorkDirectoryURL.appending(path: "pam_touchgate.so")
        let source = context.pluginWorkDirectoryURL.appending(path: "BuiltPAMModule.swift")
        let script = """
            set -e; /bin/bash "$1" "$2"; printf '/// Where the test build put pam_touchgate.so (Plugins/BuildPAMModule).\\nenum BuiltPAMModule { static let path = "%s" }\\n' "$2" > "$3"
            """
        return [
            .buildCommand(
                displayName: "Compiling pam_touchgate.so",
                executable: URL(fileURLWithPath: "/bin/bash"),
                arguments: ["-c", script, "bash", inputs[0].path, module.path, source.path],
                inputFiles: inputs,
                outputFiles: [source]
            )
        ]
    }
}
