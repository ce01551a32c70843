import Foundation
import Testing

/// enable/disable, config, log and reuse, end to end.
@Suite struct CoreCommandTests {
    static let passcode = "touchgate"
    static let biometric = "touchgate-biometric"

    @Test func failedEnableOrDisableLeavesTheSettingUnchanged() throws {
        let world = try TestEnvironment()
        let wrong = try world.run(["-S", "--json", "enable"], input: "bad-1\nbad-2\nbad-3\n")
        CoreExpect.outcome(wrong, "authenticationFailed", policy: "device-owner")
        #expect(wrong.json?["enabled"] as? Bool == false)
        #expect(try world.statusJSON()["enabled"] as? Bool == false)
        let cancelled = try world.run(["-S", "--json", "enable"], input: "")
        CoreExpect.outcome(cancelled, "userCancel", policy: "device-owner")
        #expect(try world.statusJSON()["enabled"] as? Bool == false)

        let enable = try world.run(["-S", "--json", "enable"], input: "alice-passcode\n")
        CoreExpect.outcome(enable, "success", policy: "device-owner")
        #expect(enable.json?["enabled"] as? Bool == true)
        #expect(try world.statusJSON()["enabled"] as? Bool == true)

        let wrongOff = try world.run(["-S", "--json", "disable"], input: "bad-1\nbad-2\nbad-3\n")
        CoreExpect.outcome(wrongOff, "authenticationFailed", policy: "device-owner")
        #expect(wrongOff.json?["enabled"] as? Bool == true)
        let cancelledOff = try world.run(["-S", "--json", "disable"], input: "")
        CoreExpect.outcome(cancelledOff, "userCancel", policy: "device-owner")
        let noInteraction = try world.run(["-S", "--json", "disable", "--no-interaction"], input: "alice-passcode\n")
        CoreExpect.outcome(noInteraction, "notInteractive", policy: "device-owner")
        #expect(try world.statusJSON()["enabled"] as? Bool == true)
        // The text form says so too, on stdout.
        let plainWrong = try world.run(["-S", "disable"], input: "bad\n")
        #expect(plainWrong.status == 2, "\(plainWrong)")
        #expect(plainWrong.stdout.contains("on"), "\(plainWrong)")

        let disable = try world.run(["-S", "--json", "disable"], input: "alice-passcode\n")
        CoreExpect.outcome(disable, "success", policy: "device-owner")
        #expect(disable.json?["enabled"] as? Bool == false)
        #expect(try world.statusJSON()["enabled"] as? Bool == false)
    }

    @Test func statusHasTheDocumentedKeys() throws {
        let world = try TestEnvironment()
        let status = try world.statusJSON()
        for key in ["enabled", "enrolled", "biometricFailures", "biometryLockedOut", "passcodeFailures",
                    "retryAfterSeconds", "schemaVersion", "sessions"] {
            #expect(status[key] != nil, "status lacks \(key): \(status)")
        }
        #expect(status["enabled"] as? Bool == false)
        #expect(status["enrolled"] as? Bool == false)
        #expect(status["biometricFailures"] as? Int == 0)
        #expect(status["retryAfterSeconds"] is NSNull)
        #expect(status["sessions"] as? [Any] != nil)
        try world.enableAndEnroll()
        let after = try world.statusJSON()
        #expect(after["enabled"] as? Bool == true)
        #expect(after["enrolled"] as? Bool == true)
    }

    static let badValues: [(String, String)] = [
        ("max-biometric-failures", "0"), ("max-biometric-failures", "101"), ("max-biometric-failures", "five"),
        ("biometric-tries-per-evaluation", "0"), ("biometric-tries-per-evaluation", "11"),
        ("passcode-delays", ""), ("passcode-delays", "0,,60"), ("passcode-delays", "0,-1"), ("passcode-delays", "1,2,x"),
        ("passcode-delays", "86401"), ("grace-seconds", "-1"), ("grace-seconds", "86401"),
        ("reuse-seconds", "301"), ("reuse-seconds", "-1"), ("reuse-seconds", "1.5"), ("idle-seconds", "604801"),
        ("passcode-service", ""), ("passcode-service", "../etc/passwd"), ("passcode-service", "a b"),
        ("biometric-service", ".."), ("biometric-service", "x/y"),
    ]

    @Test func badConfigValuesExit65AndChangeNothing() throws {
        let world = try TestEnvironment()
        try world.setConfig("max-biometric-failures", "4")
        let before = try world.sqlite("SELECT user || ':' || key || '=' || value FROM user_config ORDER BY user, key")
        let getBefore = try world.run(["--json", "config", "get"])
        #expect(getBefore.status == 0, "\(getBefore)")
        for (key, value) in Self.badValues {
            // `--` so that values such as -1 are not read as options.
            let result = try world.run(["config", "set", key, "--", value])
            #expect(result.status == 65, "config set \(key) '\(value)': \(result)")
            #expect(result.stderrLines.count == 1, "\(result)")
            #expect(result.stdout.isEmpty, "\(result)")
        }
        #expect(try world.sqlite("SELECT user || ':' || key || '=' || value FROM user_config ORDER BY user, key") == before)
        let getAfter = try world.run(["--json", "config", "get"])
        #expect(getAfter.stdout == getBefore.stdout)
        #expect(getAfter.json?["max-biometric-failures"] as? Int == 4)
        #expect(getAfter.json?["reuse-seconds"] as? Int == 0)
    }

    @Test func unknownConfigKeyExits65() throws {
        let world = try TestEnvironment()
        _ = try world.statusJSON()
        let set = try world.run(["config", "set", "max-failures", "3"])
        #expect(set.status == 65, "\(set)")
        #expect(set.stderrLines.count == 1, "\(set)")
        let get = try world.run(["config", "get", "max-failures"])
        #expect(get.status == 65, "\(get)")
        #expect(try world.sqlite("SELECT count(*) FROM user_config") == "0")
    }

    @Test func configGetShowsDefaultsAndSetValues() throws {
        let world = try TestEnvironment()
        let defaults = try world.run(["--json", "config", "get"])
        #expect(defaults.json?["user"] as? String == "alice")
        #expect(defaults.json?["max-biometric-failures"] as? Int == 5)
        #expect(defaults.json?["biometric-tries-per-evaluation"] as? Int == 3)
        #expect(defaults.json?["passcode-delays"] as? [Int] == [0, 0, 0, 0, 0, 60, 300, 900, 3600])
        #expect(defaults.json?["passcode-service"] as? String == "touchgate")
        #expect(defaults.json?["biometric-service"] as? String == "touchgate-biometric")
        #expect(defaults.json?["reuse-seconds"] as? Int == 0)
        #expect(defaults.json?["log-retention"] as? Int == 1000)
        let set = try world.run(["--json", "config", "set", "reuse-seconds", "300"])
        #expect(set.status == 0, "\(set)")
        #expect(set.json?["reuse-seconds"] as? Int == 300)
        #expect(set.json?["user"] as? String == "alice")
        let get = try world.run(["config", "get", "reuse-seconds"])
        #expect(get.stdout == "300\n", "\(get)")
    }

    @Test func weakeningWhileEnabledNeedsAuthentication() throws {
        let world = try TestEnvironment()
        try world.enableAndEnroll()
        func value(_ key: String) throws -> String {
            try world.run(["config", "get", key]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        let wrong = try world.run(["-S", "--json", "config", "set", "max-biometric-failures", "10"],
                                  input: "w1\nw2\nw3\nbad-1\nbad-2\nbad-3\n")
        CoreExpect.outcome(wrong, "authenticationFailed", policy: "device-owner")
        #expect(try value("max-biometric-failures") == "5")

        let cancelled = try world.run(["-S", "--json", "config", "set", "biometric-service", "touchgate-permit"], input: "")
        CoreExpect.outcome(cancelled, "userCancel", policy: "device-owner")
        #expect(try value("biometric-service") == "touchgate-biometric")

        let noTerminal = try world.runWithoutTerminal(["--json", "config", "set", "passcode-service", "touchgate-permit"])
        CoreExpect.outcome(noTerminal, "notInteractive", policy: "device-owner")
        #expect(try value("passcode-service") == "touchgate")

        let calls = world.calls(Self.passcode) + world.calls(Self.biometric)
        // Strengthening needs nothing: no prompt, no PAM call.
        let stronger = try world.run(["--json", "config", "set", "max-biometric-failures", "3"], input: "")
        #expect(stronger.status == 0, "\(stronger)")
        #expect(try value("max-biometric-failures") == "3")
        let off = try world.run(["config", "set", "biometric-service", ""], input: "")
        #expect(off.status == 0, "turning the biometric factor off is not weakening: \(off)")
        #expect(world.calls(Self.passcode) + world.calls(Self.biometric) == calls)

        // The biometric factor is off now, so the passcode is asked at once.
        let passcodeCalls = world.calls(Self.passcode)
        let right = try world.run(["-S", "--json", "config", "set", "reuse-seconds", "30"], input: "alice-passcode\n")
        #expect(right.status == 0, "\(right)")
        #expect(try value("reuse-seconds") == "30")
        #expect(world.calls(Self.passcode) == passcodeCalls + 1)
    }

    @Test func logShowsEntriesAndNeverASecret() throws {
        let world = try TestEnvironment()
        var outputs: [RunResult] = []
        func run(_ arguments: [String], _ input: String? = nil) throws -> RunResult {
            let result = try world.run(arguments, input: input)
            outputs.append(result)
            return result
        }
        #expect(try run(["-S", "enable"], "alice-passcode\n").status == 0)
        #expect(try run(["-S", "enroll"], "alice-passcode\nalice-finger\n").status == 0)
        #expect(try run(["-S", "auth", "--policy", "biometrics"], "wrong-guess-7f3a\nalice-finger\n").status == 0)
        #expect(try run(["-S", "auth"], "\nwrong-passcode-91c2\nalice-passcode\n").status == 0)
        #expect(try run(["-S", "--json", "auth"], "").status == 2)

        let log = try run(["--json", "log", "--limit", "100"])
        #expect(log.status == 0, "\(log)")
        let entries = try #require(log.json?["entries"] as? [[String: Any]], "\(log)")
        let summary = entries.map { "\($0["policy"] as? String ?? "-") \($0["factor"] as? String ?? "") \($0["outcome"] as? String ?? "")" }
        for expected in ["enable setting enabled", "device-owner passcode success", "enroll setting enrolled",
                         "biometrics biometric authenticationFailed", "biometrics biometric success",
                         "device-owner biometric userFallback", "device-owner passcode authenticationFailed",
                         "device-owner biometric userCancel"] {
            #expect(summary.contains(expected), "log lacks '\(expected)': \(summary)")
        }
        #expect(!summary.contains { $0.hasSuffix("pending") }, "\(summary)")
        for entry in entries {
            #expect(entry["user"] as? String == "alice")
            #expect(entry["time"] as? String != nil)
            #expect(entry["code"] as? Int != nil)
        }
        let ids = entries.compactMap { $0["id"] as? Int }
        #expect(ids == ids.sorted() && ids.count == entries.count)

        let limited = try run(["--json", "log", "--limit", "2"])
        let newest = try #require(limited.json?["entries"] as? [[String: Any]])
        #expect(newest.compactMap { $0["id"] as? Int } == Array(ids.suffix(2)))
        let text = try run(["log"])
        #expect(text.status == 0)
        #expect(text.stdout.split(separator: "\n").count == min(20, entries.count), "\(text)")
        #expect(text.stdout.contains("authenticationFailed"))

        // While a process holds the store open its write-ahead log is on disk: check it then too.
        let live = try world.start(["-S", "auth", "--policy", "biometrics"])
        live.write("wrong-live-5e0d\n")
        try world.waitFor("a second prompt") { live.errorsSoFar.components(separatedBy: "Password:").count >= 3 }
        let liveFiles = world.storeFileBytes()
        #expect(!liveFiles[1].isEmpty, "the -wal file exists while the store is open")
        for file in liveFiles {
            #expect(file.range(of: Data("wrong-live-5e0d".utf8)) == nil)
            #expect(file.range(of: Data("alice-finger".utf8)) == nil)
        }
        live.closeInput()
        outputs.append(try live.wait())

        let secrets = ["alice-passcode", "alice-finger", "wrong-guess-7f3a", "wrong-passcode-91c2", "wrong-live-5e0d"]
        for (index, file) in world.storeFileBytes().enumerated() {
            for secret in secrets {
                #expect(file.range(of: Data(secret.utf8)) == nil, "store file \(index) holds \(secret)")
            }
        }
        let dump = try world.sqlite(".dump")
        for secret in secrets {
            #expect(!dump.contains(secret))
            for output in outputs {
                #expect(!output.stdout.contains(secret) && !output.stderr.contains(secret), "\(output)")
            }
        }
    }

    @Test func logLimitMustBeAWholeNumberInRange() throws {
        let world = try TestEnvironment()
        for bad in ["0", "-3", "abc", "100001"] {
            let result = try world.run(["log", "--limit", bad])
            #expect(result.status == 65, "--limit \(bad): \(result)")
            #expect(result.stderrLines.count == 1)
        }
    }

    @Test func reuseWindowSucceedsWithoutCallingPAM() throws {
        let world = try TestEnvironment()
        try world.setConfig("reuse-seconds", "60")
        try world.enableAndEnroll()
        let calls = world.calls(Self.biometric) + world.calls(Self.passcode)
        // Nothing to read on stdin: only a reuse can succeed.
        let reused = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "")
        CoreExpect.outcome(reused, "success", policy: "biometrics")
        let noInteraction = try world.run(["--json", "auth", "--no-interaction"], input: "")
        CoreExpect.outcome(noInteraction, "success", policy: "device-owner")
        #expect(world.calls(Self.biometric) + world.calls(Self.passcode) == calls)
        let log = try world.run(["--json", "log", "--limit", "2"])
        let factors = (log.json?["entries"] as? [[String: Any]])?.compactMap { $0["factor"] as? String }
        #expect(factors == ["reuse", "reuse"], "\(log)")

        // With reuse off (a strengthening change, no auth needed) the same run has to ask.
        try world.setConfig("reuse-seconds", "0")
        let asked = try world.run(["-S", "--json", "auth", "--policy", "biometrics"], input: "")
        CoreExpect.outcome(asked, "userCancel", policy: "biometrics")
    }
}
