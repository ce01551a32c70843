extension InvocationContext {
    /// The remote host when this is a remote session, from the SSH variables (``RemoteHost``).
    package var remoteHost: String? { RemoteHost.fromSSH(variables) }
}
