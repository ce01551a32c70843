import Foundation

extension TestEnvironment {
    /// Copies `touchgate` to this world's `bin/`, and the built executable `program` that it execs
    /// (`touchgate-watch`, `touchgate-demo`) to `directory` under the world (none when `nil`: the
    /// program is missing); returns the copied `touchgate`'s path.
    func installTouchgate(with program: String, in directory: String?) throws -> String {
        let files = FileManager.default
        let bin = self.directory.appendingPathComponent("bin")
        try files.createDirectory(at: bin, withIntermediateDirectories: true)
        let touchgate = bin.appendingPathComponent("touchgate").path
        try Self.copyExecutable(Self.binary, to: touchgate)
        if let directory {
            let target = self.directory.appendingPathComponent(directory)
            try files.createDirectory(at: target, withIntermediateDirectories: true)
            try Self.copyExecutable(program, to: target.appendingPathComponent(URL(fileURLWithPath: program).lastPathComponent).path)
        }
        return touchgate
    }
}
