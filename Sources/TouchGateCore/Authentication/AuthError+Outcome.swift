extension AuthError {
    /// The JSON members of an evaluation's outcome as `auth` and the setting commands print it
    /// (`error` `nil`: success): the outcome's name, its code, the policy, the sentence shown
    /// without `--json`, and when there is one, the wait and why the passcode is required.
    public static func outcomeMembers(_ error: AuthError?, policy: String) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [
            ("outcome", .string(error?.code.name ?? "success")),
            ("code", .int(error?.code.rawValue ?? 0)),
            ("policy", .string(policy)),
            ("message", .string(error?.message ?? "Success.")),
        ]
        if let wait = error?.retryAfterSeconds { members.append(("retryAfterSeconds", .int(wait))) }
        if let reason = error?.passcodeRequired { members.append(("passcodeRequired", .string(reason.rawValue))) }
        return members
    }
}
