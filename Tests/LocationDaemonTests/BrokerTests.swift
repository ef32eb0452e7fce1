import Foundation
import JSON
import LocationTestSupport
import ProcessIdentity
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// SEMANTICS I8–I11 against the real daemon: a broker says Hello for another process and passes its pidfd; locd
/// checks the manifest against that process, and keeps none of the descriptors it is passed.
@Suite("Brokers", .serialized)
struct BrokerTests {
    /// Where python3 really is: a script run with it shows this as /proc/PID/exe, and is no broker.
    private static let python = ExecutableManifests.python

    /// The test apps; com.ex.brokerlike allows the broker's own executable, so that a check of the broker in
    /// the app's place would pass it.
    private static func manifests(broker: String) -> [String: String] {
        var manifests = standardManifests
        manifests["com.ex.brokerlike"] = """
            id = "com.ex.brokerlike"
            identity = "executable"
            executables = ["\(broker)"]
            NSLocationWhenInUseUsageDescription = "Runs what the broker runs"
            """
        return manifests
    }

    private static let standardManifests: [String: String] = ExecutableManifests.all.merging([
        "com.ex.mine": """
        id = "com.ex.mine"
        identity = "uid"
        users = ["65534"]
        NSLocationWhenInUseUsageDescription = "Runs as nobody"
        """,
        "com.ex.root": """
        id = "com.ex.root"
        identity = "uid"
        users = ["0"]
        NSLocationWhenInUseUsageDescription = "Runs as root"
        """,
    ]) { $1 }

    /// A copy of python3 in a directory of its own: named as a `[[broker]]`'s executable, the scripts it runs as the
    /// test's user are brokers.
    private final class BrokerInterpreter {
        let directory: String
        let path: String

        init() throws {
            directory = try TemporaryDirectory(prefix: "locd-broker").path
            path = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path + "/broker-python3"
            try FileManager.default.copyItem(atPath: BrokerTests.python, toPath: path)
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// - Parameter limits: lines of locd's `[limits]` table.
    private func daemon(
        _ broker: BrokerInterpreter,
        unknownApps: String = "ask",
        limits: String = ""
    ) throws -> DaemonProcess {
        let settings =
            "unknown-brokered-apps = \"\(unknownApps)\"\n" + DaemonProcess.fastLifecycle
            + (limits.isEmpty ? "" : "\n[limits]\n" + limits) + DaemonProcess.broker(executable: broker.path)
        let daemon = try DaemonProcess(manifests: Self.manifests(broker: broker.path), settings: settings)
        try daemon.start()
        return daemon
    }

    /// Runs broker_hello.py with `interpreter`, as `uid` (and its gid, no other group) if given; its stdout lines.
    private func broker(
        _ interpreter: String,
        _ arguments: [String],
        appUID: UInt32? = nil,
        asUID uid: UInt32? = nil,
        environment: [String: String] = [:]
    ) throws -> [String] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Scripts/broker_hello.py").path
        let process = Process()
        if let uid {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", interpreter, script] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: interpreter)
            process.arguments = [script] + arguments
        }
        var added = environment
        if let appUID { added["APP_UID"] = "\(appUID)" }
        process.environment = ProcessInfo.processInfo.environment.merging(added) { $1 }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitForExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    private func reply(_ line: String?) -> VarlinkReply? {
        line.flatMap { VarlinkReply.decode(Array($0.utf8)) }
    }

    /// The refusal's answer names no path of the system (I7), and the log says why.
    private func expectDenied(_ line: String?, _ daemon: DaemonProcess, logged reason: String) {
        let answer = reply(line)
        #expect(answer?.error == "org.varlink.service.PermissionDenied", "\(line ?? "no reply")")
        let message = answer?.parameters["message"]?.stringValue ?? ""
        #expect(!message.isEmpty && !message.contains("/usr/") && !message.contains(".toml"), "\(message)")
        #expect(
            eventually(timeout: 5) {
                daemon.logSoFar.split(separator: "\n").contains {
                    $0.contains("refused io.locd.App.Hello") && $0.contains(reason)
                }
            },
            "no log line with \(reason)"
        )
    }

    @Test("I8, I9: a broker speaks for a process whose executable the manifest names, as that app")
    func brokerAccepted() throws {
        let interpreter = try BrokerInterpreter()
        let daemon = try daemon(interpreter)
        let lines = try broker(interpreter.path, [daemon.socketPath, "com.ex.sleeper", "speak", "/usr/bin/sleep"])
        #expect(lines.count == 2, "\(lines)")
        #expect(reply(lines.first)?.error == nil, "\(lines)")
        #expect(reply(lines.first)?.parameters["authorization"] != nil)
        // The connection is then the app's own: its calls need no further Hello.
        #expect(reply(lines.last)?.error == nil && reply(lines.last)?.parameters["authorization"] != nil)
    }

    @Test(
        "I13: a [[broker]] executable given as a link is resolved at load: the process running its target is a broker"
    )
    func brokerExecutableLink() throws {
        let interpreter = try BrokerInterpreter()
        let link = interpreter.directory + "/locd-geoclue"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: interpreter.path)
        let settings = DaemonProcess.fastLifecycle + DaemonProcess.broker(executable: link)
        let daemon = try DaemonProcess(manifests: Self.standardManifests, settings: settings)
        try daemon.start()
        let lines = try broker(interpreter.path, [daemon.socketPath, "com.ex.sleeper", "speak", "/usr/bin/sleep"])
        #expect(reply(lines.first)?.error == nil, "\(lines)")
        #expect(reply(lines.first)?.parameters["authorization"] != nil, "\(lines)")
        // Another program of the broker's user is still no broker, and the log names the path written and resolved.
        let other = try broker(Self.python, [daemon.socketPath, "com.ex.sleeper", "speak", "/usr/bin/sleep"])
        expectDenied(other.first, daemon, logged: "\(link) (resolved: \(interpreter.path))")
    }

    @Test(
        "I8: a broker whose executable an upgrade replaced while it ran (PATH (deleted)) is still the broker; another program's replaced file is not"
    )
    func brokerExecutableReplaced() throws {
        let interpreter = try BrokerInterpreter()
        let daemon = try daemon(interpreter)
        let upgrade = ["REPLACE_OWN_EXECUTABLE": "1"]
        let lines = try broker(
            interpreter.path,
            [daemon.socketPath, "com.ex.sleeper", "speak", "/usr/bin/sleep"],
            environment: upgrade
        )
        #expect(reply(lines.first)?.error == nil, "\(lines)")
        #expect(reply(lines.first)?.parameters["authorization"] != nil, "\(lines)")
        // The same, run from a copy of the interpreter elsewhere: its replaced file is not the broker's.
        let other = try BrokerInterpreter()
        let impostor = try broker(
            other.path,
            [daemon.socketPath, "com.ex.sleeper", "speak", "/usr/bin/sleep"],
            environment: upgrade
        )
        expectDenied(impostor.first, daemon, logged: "executable \(other.path) (deleted) of pid")
    }

    @Test("I9: a broker cannot speak for a process whose executable the manifest does not name, even its own")
    func brokerWrongExecutable() throws {
        let interpreter = try BrokerInterpreter()
        let daemon = try daemon(interpreter)
        // The app process runs sleep; com.ex.brokerlike allows the broker's own executable only.
        let lines = try broker(interpreter.path, [daemon.socketPath, "com.ex.brokerlike", "speak", "/usr/bin/sleep"])
        expectDenied(lines.first, daemon, logged: "executable /usr/bin/sleep of pid")
    }

    @Test(
        "I9: uid identity is checked against the real uid of the process spoken for, not the broker's",
        .enabled(if: getuid() == 0, "running the app as another user needs root")
    )
    func brokerUID() throws {
        let interpreter = try BrokerInterpreter()
        let daemon = try daemon(interpreter)
        // The broker runs as root, its app as nobody: com.ex.root allows uid 0, com.ex.mine uid 65534.
        let socket = daemon.socketPath
        let refused = try broker(interpreter.path, [socket, "com.ex.root", "speak", "/usr/bin/sleep"], appUID: 65534)
        expectDenied(refused.first, daemon, logged: "uid 65534 of pid")
        let accepted = try broker(interpreter.path, [socket, "com.ex.mine", "speak", "/usr/bin/sleep"], appUID: 65534)
        #expect(reply(accepted.first)?.error == nil, "\(accepted)")
    }

    @Test(
        "F11, I8: a broker's Hello counts against the uid of the process it speaks for, not the broker's: past that uid's max-connections-per-uid it is LimitExceeded, while another uid's app gets in",
        .enabled(if: getuid() == 0, "running the app as another user needs root")
    )
    func brokeredConnectionCountsAgainstTheAppsUID() throws {
        let interpreter = try BrokerInterpreter()
        let daemon = try daemon(interpreter, limits: "max-connections-per-uid = 4")
        let socket = daemon.socketPath
        // The broker runs as root, exempt from the per-uid limit (F12); nobody already holds its 4 connections.
        let nobody = try ConnectionHolder(socket: socket, uid: 65534)
        #expect(try nobody.open(4) == Array(repeating: "ok", count: 4))
        let refused = try broker(interpreter.path, [socket, "com.ex.mine", "speak", "/usr/bin/sleep"], appUID: 65534)
        let answer = reply(refused.first)
        #expect(answer?.error == "io.locd.App.LimitExceeded", "\(refused)")
        #expect(answer?.parameters["limit"]?.stringValue == "max-connections-per-uid", "\(refused)")
        #expect(answer?.parameters["maximum"]?.intValue == 4, "\(refused)")
        // The connection is closed after the refusal: the call that followed it got no answer.
        #expect(refused.count == 1, "\(refused)")
        #expect(
            eventually(timeout: 5) {
                daemon.logSoFar.contains("refusing a connection from uid 65534") && daemon.logSoFar.contains("broker")
            },
            "\(daemon.logSoFar)"
        )
        // Another uid's app behind the same broker is not counted with nobody's connections.
        let other = try broker(interpreter.path, [socket, "com.ex.sleeper", "speak", "/usr/bin/sleep"], appUID: 65533)
        #expect(reply(other.first)?.error == nil, "\(other)")
        // Once nobody lets go of one, its app gets in through the broker.
        try nobody.close(1)
        let accepted = try eventually(timeout: 5) {
            let lines = try broker(interpreter.path, [socket, "com.ex.mine", "speak", "/usr/bin/sleep"], appUID: 65534)
            return reply(lines.first)?.error == nil
        }
        #expect(accepted)
    }

    @Test("I8: a process that is not a broker cannot say Hello for another process")
    func notABroker() throws {
        let interpreter = try BrokerInterpreter()
        let daemon = try daemon(interpreter)
        let lines = try broker(Self.python, [daemon.socketPath, "com.ex.sleeper", "speak", "/usr/bin/sleep"])
        expectDenied(lines.first, daemon, logged: "is not the executable of the [[broker]] of uid")
        #expect(reply(lines.first)?.parameters["message"]?.stringValue?.contains("only a broker") == true)
    }

    @Test(
        "I13: another user who runs the broker's own program, or writes Hello and execs it, is no broker and cannot speak for a root-only app's process",
        .enabled(if: getuid() == 0, "acting as another user needs root")
    )
    func impostorRunningTheBrokersProgram() throws {
        let interpreter = try BrokerInterpreter()
        let daemon = try daemon(interpreter)
        // The victim: a process of root, whose uid com.ex.root's manifest names.
        let victim = Process()
        victim.executableURL = URL(fileURLWithPath: "/usr/bin/sleep")
        victim.arguments = ["60"]
        try victim.run()
        defer {
            victim.signalAndWait(SIGKILL)
        }
        let socket = daemon.socketPath
        let pid = "\(victim.processIdentifier)"
        // nobody runs the broker's program itself: the executable is the broker's, the user is not.
        let ran = try broker(interpreter.path, [socket, "com.ex.root", "speak-for", "-", pid], asUID: 65534)
        expectDenied(ran.first, daemon, logged: "uid 65534 of the connection")
        // The refused connection speaks for no app: its next call is told to say Hello.
        #expect(reply(ran.last)?.error == "io.locd.App.HelloRequired", "\(ran)")
        // nobody writes Hello from another program and at once execs the broker's, a sibling keeping the connection.
        let execd = try broker(Self.python, [socket, "com.ex.root", "exec-for", interpreter.path, pid], asUID: 65534)
        expectDenied(execd.first, daemon, logged: "uid 65534 of the connection")
        #expect(reply(execd.last)?.error == "io.locd.App.HelloRequired", "\(execd)")
        // The broker's own user running the same program is a broker: the check is of the principal, not the file.
        let own = try broker(interpreter.path, [socket, "com.ex.root", "speak-for", "-", pid])
        #expect(reply(own.first)?.error == nil, "\(own)")
    }

    @Test("I9: a pidfd of another process than the one named, or no pidfd at all, is refused")
    func wrongPidfd() throws {
        let interpreter = try BrokerInterpreter()
        let daemon = try daemon(interpreter)
        let mismatch = try broker(
            interpreter.path,
            [daemon.socketPath, "com.ex.sleeper", "mismatch", "/usr/bin/sleep"]
        )
        expectDenied(mismatch.first, daemon, logged: "names pid")
        // Other apps, so that I6 logs each refusal in full: the descriptors are checked before the manifest.
        let bare = try broker(interpreter.path, [daemon.socketPath, "com.ex.python", "bare", "/usr/bin/sleep"])
        expectDenied(bare.first, daemon, logged: "came with 0 descriptors")
        #expect(reply(bare.first)?.parameters["message"]?.stringValue?.contains("pass one pidfd") == true)
        let extra = try broker(interpreter.path, [daemon.socketPath, "com.ex.mine", "extra", "/usr/bin/sleep"])
        expectDenied(extra.first, daemon, logged: "came with 3 descriptors")
    }

    @Test(
        "I9: a process that exited and whose pid another process running the app's executable took is refused",
        .enabled(if: getuid() == 0, "taking a given pid through ns_last_pid needs root")
    )
    func pidReuse() throws {
        let interpreter = try BrokerInterpreter()
        let daemon = try daemon(interpreter)
        let lines = try broker(interpreter.path, [daemon.socketPath, "com.ex.sleeper", "reused", "/usr/bin/sleep"])
        #expect(lines.last?.hasPrefix("reused ") == true, "\(lines)")
        expectDenied(lines.first, daemon, logged: "names a process that has exited")
    }

    @Test("I9: VarlinkClient passes a pidfd with Hello, as a broker written in Swift does")
    func swiftClient() throws {
        // The test process itself is the broker: its user and executable are a [[broker]]'s.
        let own = try #require(ProcessFacts().executable(of: getpid()))
        let settings = DaemonProcess.fastLifecycle + DaemonProcess.broker(executable: own)
        let daemon = try DaemonProcess(manifests: Self.standardManifests, settings: settings)
        try daemon.start()
        let app = Process()
        app.executableURL = URL(fileURLWithPath: "/usr/bin/sleep")
        app.arguments = ["30"]
        try app.run()
        defer {
            app.signalAndWait(SIGKILL)
        }
        let pidfd = try #require(ProcessFacts.openPidfd(app.processIdentifier))
        defer { close(pidfd) }
        let parameters: JSONObject = [
            "appId": .string("com.ex.sleeper"), "process": .int(Int64(app.processIdentifier)),
        ]
        let client = try VarlinkClient(path: daemon.socketPath)
        let hello = try client.call("io.locd.App.Hello", parameters, passing: pidfd)
        #expect(hello["authorization"] != nil)
        // The same call without the pidfd is refused: the descriptor did the work.
        let bare = try VarlinkClient(path: daemon.socketPath)
        #expect(throws: VarlinkError.self) { try bare.call("io.locd.App.Hello", parameters) }
    }

    @Test("I11: an app with no manifest gets a stand-in from a broker when ask, AppUnknown when deny")
    func unknownApps() throws {
        let interpreter = try BrokerInterpreter()
        let asking = try daemon(interpreter)
        let description = "Shows where you are on the map."
        let accepted = try broker(
            interpreter.path,
            [asking.socketPath, "org.example.NoManifest", "speak", "/usr/bin/sleep", description]
        )
        #expect(reply(accepted.first)?.error == nil, "\(accepted)")
        let status = reply(accepted.first)?.parameters["authorization"]?.objectValue?["status"]?.stringValue
        #expect(status == "notDetermined")
        let denying = try daemon(interpreter, unknownApps: "deny")
        let refused = try broker(
            interpreter.path,
            [denying.socketPath, "org.example.NoManifest", "speak", "/usr/bin/sleep"]
        )
        #expect(reply(refused.first)?.error == "io.locd.App.AppUnknown", "\(refused)")
        #expect(reply(refused.first)?.parameters["message"]?.stringValue?.contains("unknown-brokered-apps") == true)
    }

    @Test(
        "I11: description is refused without process, or when it is no bounded line of text; so is a process that is no pid"
    )
    func parameters() throws {
        let interpreter = try BrokerInterpreter()
        let daemon = try daemon(interpreter)
        let client = try VarlinkClient(path: daemon.socketPath)
        #expect(throws: VarlinkError.self) {
            try client.call("io.locd.App.Hello", ["appId": .string("com.ex.sleeper"), "description": .string("words")])
        }
        // A description is shown in a prompt: bounded, one line, no terminal escapes.
        for bad in ["", "two\nlines", "\u{1B}[2Jcleared", String(repeating: "x", count: 1025)] {
            let other = try VarlinkClient(path: daemon.socketPath)
            let parameters: JSONObject = [
                "appId": .string("com.ex.sleeper"), "process": .int(1), "description": .string(bad),
            ]
            do {
                try other.call("io.locd.App.Hello", parameters)
                Issue.record("description \(bad.debugDescription) was accepted")
            } catch let error as VarlinkError {
                #expect(error.name == "org.varlink.service.InvalidParameter")
                #expect(error.parameters["parameter"]?.stringValue == "description")
            }
        }
        for bad: JSONValue in [.int(0), .int(-4), .int(1 << 40), .string("12")] {
            let other = try VarlinkClient(path: daemon.socketPath)
            do {
                try other.call("io.locd.App.Hello", ["appId": .string("com.ex.sleeper"), "process": bad])
                Issue.record("process \(bad) was accepted")
            } catch let error as VarlinkError {
                #expect(error.name == "org.varlink.service.InvalidParameter")
            }
        }
    }

    @Test("I10: a flood of brokered Hellos passing descriptors leaves locd's descriptor count where it was")
    func descriptorFlood() throws {
        let interpreter = try BrokerInterpreter()
        let daemon = try daemon(interpreter)
        // One brokered Hello first, so that what a first accepted Hello opens for good (the store) is counted.
        let warm = try broker(interpreter.path, [daemon.socketPath, "com.ex.sleeper", "speak", "/usr/bin/sleep"])
        #expect(reply(warm.first)?.error == nil, "\(warm)")
        let directory = "/proc/\(daemon.pid)/fd"
        func openDescriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: directory).count) ?? -1 }
        var before = openDescriptors()
        // The warm-up connection's socket goes when locd has seen it close.
        _ = eventually(timeout: 2) {
            let now = openDescriptors()
            defer { before = now }
            return now == before
        }
        before = openDescriptors()
        let count = 400
        let lines = try broker(
            interpreter.path,
            [daemon.socketPath, "com.ex.sleeper", "flood", "/usr/bin/sleep", "\(count)"]
        )
        #expect(lines.last == #"{"ok": 100, "org.varlink.service.PermissionDenied": 200}"#, "\(lines)")
        // A leak would be hundreds (every accepted Hello passes one pidfd, every refused one five descriptors); a
        // few are what locd opens once, at first need, and keeps (the readiness poller's epoll).
        let settled = eventually(timeout: 20) { openDescriptors() <= before + 3 }
        let held = (try? FileManager.default.contentsOfDirectory(atPath: directory))?.compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\($0)")
        }
        #expect(settled, "locd holds \(openDescriptors()) descriptors, had \(before): \(held ?? [])")
    }

    @Test("F18: a flood of invented app ids leaves no app behind in locd or in its store")
    func inventedAppIDs() throws {
        let interpreter = try BrokerInterpreter()
        let daemon = try daemon(interpreter)
        func listed() throws -> [String] {
            let apps = try daemon.connect().call("io.locd.Admin.ListApps")["apps"]?.arrayValue ?? []
            return apps.compactMap { $0["appId"]?.stringValue }
        }
        let before = try listed()
        #expect(!before.isEmpty)
        // Each app id gets its session and its prompt, and is done with it at once.
        let count = 300
        let lines = try broker(
            interpreter.path,
            [daemon.socketPath, "org.invented.app", "invent", "/usr/bin/sleep", "\(count)"]
        )
        #expect(lines.last == #"{"ok": \#(count)}"#, "\(lines)")
        #expect(try listed() == before)
        // Nothing of them was left in the store either, and after a restart the first call sees the installed
        // apps alone.
        #expect(daemon.stop() == 0)
        let stored = try ["apps", "records", "sessions"].map {
            try daemon.storedValue("SELECT count(*) FROM \($0) WHERE app_id LIKE ?", ["org.invented.%"])
        }
        #expect(stored == ["0", "0", "0"])
        try daemon.start()
        #expect(try listed() == before)
    }

    @Test(
        "F20: a user whose own agent decides every app id it invents is held to max-apps-per-uid; root sees the owner, and locctl forget --user clears them, from the store too",
        .enabled(if: getuid() == 0, "running the app as another user needs root")
    )
    func decidedAppsPerUID() throws {
        let interpreter = try BrokerInterpreter()
        let daemon = try daemon(interpreter, limits: "max-apps-per-uid = 6")
        let socket = daemon.socketPath
        func invented() throws -> [JSONValue] {
            let apps = try daemon.connect().call("io.locd.Admin.ListApps")["apps"]?.arrayValue ?? []
            return apps.filter { $0["appId"]?.stringValue?.hasPrefix("org.invented.") == true }
        }
        // nobody's process invents ids; the broker speaks for it and the person's own agent answers each prompt.
        let lines = try broker(
            interpreter.path,
            [socket, "org.invented.app", "decide", "/usr/bin/sleep", "10"],
            appUID: 65534
        )
        #expect(lines.last == #"{"ok": 6, "io.locd.App.LimitExceeded": 4}"#, "\(lines)")
        let refusal = reply(lines.count == 2 ? lines.first : nil)
        #expect(refusal?.parameters["limit"]?.stringValue == "max-apps-per-uid", "\(lines)")
        #expect(refusal?.parameters["maximum"]?.intValue == 6)
        #expect(refusal?.parameters["message"]?.stringValue?.contains("locctl forget --user") == true)
        #expect(
            eventually(timeout: 5) {
                daemon.logSoFar.contains("uid 65534 already has 6 apps (max-apps-per-uid)")
            },
            "\(daemon.logSoFar)"
        )
        // Root's ListApps holds the bound, each app decided and named as nobody's.
        let held = try invented()
        #expect(held.count == 6)
        #expect(held.allSatisfy { $0["owner"]?.intValue == 65534 && $0["ownerUnknown"] == nil })
        #expect(held.allSatisfy { $0["authorization"]?["status"]?.stringValue == "authorizedWhenInUse" })
        // Another user's apps are counted apart.
        let other = try broker(
            interpreter.path,
            [socket, "org.invented.other", "decide", "/usr/bin/sleep", "2"],
            appUID: 65533
        )
        #expect(other.last == #"{"ok": 2}"#, "\(other)")
        let shown = try LocctlBinary.run(["apps", "--user", "nobody", "--no-legend"], socket: socket)
        // Its 6 invented apps, beside the installed apps it has not run, each nobody's at its defaults (H2).
        let inventedRows = shown.output.split(separator: "\n").filter { $0.hasPrefix("org.invented") }
        #expect(inventedRows.count == 6, "\(shown.output)\(shown.errors)")
        #expect(shown.output.split(separator: "\n").allSatisfy { $0.contains(" nobody ") }, "\(shown.output)")

        // The administrator forgets them: nobody's go, the other user's stay, and nobody has its room back.
        let forgot = try LocctlBinary.run(["forget", "--user", "nobody"], socket: socket)
        #expect(forgot.status == 0, "\(forgot.errors)")
        #expect(forgot.output == "Forgot 6 apps of user nobody (65534).\n")
        #expect(try invented().compactMap { $0["owner"]?.intValue } == [65533, 65533])
        let again = try broker(
            interpreter.path,
            [socket, "org.invented.again", "decide", "/usr/bin/sleep", "1"],
            appUID: 65534
        )
        #expect(again.last == #"{"ok": 1}"#, "\(again)")
        _ = try LocctlBinary.run(["forget", "--user", "65534"], socket: socket)

        // Nothing of nobody's apps (org.invented.app.N, org.invented.again.0) is left in the store, and a restart
        // brings none back; the other user's keep their rows.
        #expect(daemon.stop() == 0)
        let stored = try ["apps", "records"].map {
            try daemon.storedValue("SELECT count(*) FROM \($0) WHERE app_id LIKE ?", ["org.invented.a%"])
                + "/"
                + daemon.storedValue("SELECT count(*) FROM \($0) WHERE app_id LIKE ?", ["org.invented.other.%"])
        }
        #expect(stored == ["0/2", "0/2"])
        try daemon.start()
        #expect(try invented().compactMap { $0["owner"]?.intValue } == [65533, 65533])
    }
}
