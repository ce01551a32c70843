import Foundation

extension PAMHost {
    /// Writes the namespace's `/etc/touchgate.conf` (pam-host.bash copies it there with this
    /// owner and mode, on an overlay of /etc: the machine's /etc never changes).
    func systemPolicy(_ text: String, owner: uid_t = 0, mode: mode_t = 0o644) throws {
        let file = path + "/touchgate.conf"
        try? FileManager.default.removeItem(atPath: file)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        guard chown(file, owner, gid_t(owner)) == 0, chmod(file, mode) == 0 else {
            throw TestFailure("cannot set the owner and mode of \(file)")
        }
    }
}
