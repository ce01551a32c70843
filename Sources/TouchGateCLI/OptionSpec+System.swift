import TouchGateArguments

extension OptionSpec {
    /// `--system`: the root-owned ledger pam_touchgate.so counts in, for the administrator.
    static let system = OptionSpec("--system",
        "the system ledger /var/lib/touchgate/touchgate.sqlite that pam_touchgate.so counts in (status, log, reset, config; writes need root)")
}
