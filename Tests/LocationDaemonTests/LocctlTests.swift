import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// `locctl` against a real daemon, over its real socket.
@Suite("locctl", .serialized)
struct LocctlTests {
    private func locctl(_ arguments: [String], _ daemon: DaemonProcess) throws -> LocctlBinary.Result {
        try LocctlBinary.run(arguments, socket: daemon.socketPath)
    }

    /// Lifecycle settings with a relaunch window long enough that a lingering session is still there
    /// when locctl looks.
    static let slowRelaunch = DaemonProcess.lifecycle(relaunchWindow: 40)

    @Test("S12: locctl status lists the apps using location now and in the background")
    func status() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let admin = try daemon.connect()
        for app in ["com.ex.maps", "com.ex.run"] {
            try admin.call("io.locd.Admin.SetAuthorization", ["appId": .string(app), "setting": .string("whileUsing")])
        }
        let maps = try daemon.app("com.ex.maps")
        try maps.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        let run = try daemon.app("com.ex.run")
        try run.call("io.locd.App.BeginBackgroundActivity")
        try run.call("io.locd.App.SetAppState", ["state": .string("background")])

        let human = try locctl(["status"], daemon)
        #expect(human.status == 0)
        #expect(human.output.contains("   Location services: on\n"))
        #expect(human.output.contains("            Sessions: 2 (0 lingering)\n"))
        #expect(human.output.contains("      Using location: com.ex.maps, com.ex.run\n"))
        #expect(human.output.contains("   In the background: com.ex.run\n"))
        #expect(!human.output.contains("\u{1B}["), "no colour in a pipe")

        let json = try locctl(["status", "--json"], daemon)
        let status = try #require(JSONValue.parse(Array(json.output.utf8)))
        #expect(status["appsUsingLocationInBackground"] == .array([.string("com.ex.run")]))
        #expect(status["sessions"] == .int(2))
        #expect(status["storeHealthy"] == .bool(true))
    }

    @Test("S12: an app authorized Always that uses location in the background is not under \"In the background\"")
    func statusAlwaysHasNoIndicator() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try daemon.connect().call(
            "io.locd.Admin.SetAuthorization",
            ["appId": .string("com.ex.maps"), "setting": .string("always")]
        )
        let maps = try daemon.app("com.ex.maps")
        try maps.call("io.locd.App.CreateSession", ["authorization": .string("always")])
        try maps.call("io.locd.App.SetAppState", ["state": .string("background")])

        let human = try locctl(["status"], daemon)
        #expect(human.status == 0)
        #expect(human.output.contains("      Using location: com.ex.maps\n"))
        #expect(!human.output.contains("   In the background: com.ex.maps"), "\(human.output)")
        let json = try locctl(["status", "--json"], daemon)
        let status = try #require(JSONValue.parse(Array(json.output.utf8)))
        #expect(status["appsUsingLocation"] == .array([.string("com.ex.maps")]))
        #expect(status["appsUsingLocationInBackground"] == .array([]))
        let app = try locctl(["app", "com.ex.maps", "--json"], daemon)
        let view = try #require(JSONValue.parse(Array(app.output.utf8)))
        #expect(view["usingLocationInBackground"] == .bool(false))
    }

    @Test("locctl --socket PATH status --json and locctl status --socket PATH --json both reach the daemon at PATH")
    func globalOptionsEitherSide() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        // LOCD_SOCKET names nothing: only --socket, wherever it is written, can reach the daemon.
        for arguments in [
            ["--socket", daemon.socketPath, "status", "--json"], ["status", "--socket", daemon.socketPath, "--json"],
            ["--json", "--socket=\(daemon.socketPath)", "status"], ["--socket", daemon.socketPath, "--json"],
        ] {
            let result = try LocctlBinary.run(arguments, socket: "/nonexistent/io.locd")
            #expect(result.status == 0, "\(arguments): \(result.errors)")
            let status = try #require(JSONValue.parse(Array(result.output.utf8)), "\(arguments)")
            #expect(status["pid"] == .int(Int64(daemon.pid)), "\(arguments)")
        }
        let legend = try LocctlBinary.run(
            ["--no-legend", "--socket", daemon.socketPath, "apps"],
            socket: "/nonexistent"
        )
        #expect(legend.status == 0, "\(legend.errors)")
    }

    @Test("H4: the shell completes locctl's app and session ids from what the user's locd has, through --socket too")
    func liveCompletions() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let maps = try daemon.app("com.ex.maps")
        let session = try maps.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        let sessionID = try #require(session["session"]?["id"]?.stringValue)
        _ = try daemon.app("com.ex.run")
        // As bash calls it: the command, the argument, the word's index and the cursor, then the words typed.
        let apps = try locctl(
            ["---completion", "auth", "--", "positional@0", "2", "8", "locctl", "auth", "com.ex.m"],
            daemon
        )
        #expect(apps.output.split(separator: "\n") == ["com.ex.maps"], "\(apps.errors)")
        let sessions = try LocctlBinary.run(
            [
                "---completion", "session", "--", "positional@0", "4", "0", "locctl", "session", "--socket",
                daemon.socketPath, "",
            ],
            socket: "/nonexistent/io.locd"
        )
        #expect(sessions.output.split(separator: "\n") == [Substring(sessionID)], "\(sessions.errors)")
        let pretty = try locctl(["status", "--json=pretty"], daemon)
        #expect(pretty.output.hasPrefix("{\n  \"administrator\": "), "\(pretty.output)")
        #expect(JSONValue.parse(Array(pretty.output.utf8))?["pid"] == .int(Int64(daemon.pid)))
    }

    @Test("locctl: a daemon that is not there is a clear failure with exit code 1")
    func noDaemon() throws {
        let result = try LocctlBinary.run(["status"], socket: "/nonexistent/io.locd")
        #expect(result.status == 1)
        #expect(result.errors.hasPrefix("locctl: cannot connect to /nonexistent/io.locd: No such file or directory."))
        #expect(result.errors.contains("--socket"))
        #expect(result.output.isEmpty)
    }

    @Test("A2: locctl apps and app ID show status and Settings label side by side, and --json the ListApps entries")
    func apps() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let admin = try daemon.authorize("com.ex.maps", "never")
        let run = try daemon.app("com.ex.run")
        try run.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])

        let table = try locctl(["apps", "--no-legend"], daemon)
        #expect(table.status == 0, "\(table.errors)")
        let rows = table.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        // H1, H2: each installed app's entry of no user, and root's app of com.ex.run, made by its Hello.
        #expect(rows.count == 4)
        // The administrator's never is the setting of every user's com.ex.maps, and its ceiling (H5).
        let maps = try #require(rows.first { $0.first == "com.ex.maps" })
        #expect(maps == ["com.ex.maps", "-", "notRunning", "no", "denied", "never", "full", "0", "0", "never", "max"])
        let installed = try #require(rows.first { $0.first == "com.ex.run" && $0.dropFirst().first == "-" })
        #expect(
            installed == ["com.ex.run", "-", "notRunning", "no", "notDetermined", "askNextTime", "full", "0", "0", "-"]
        )
        let running = try #require(rows.first { $0.first == "com.ex.run" && $0.dropFirst().first == "root" })
        #expect(
            running == [
                "com.ex.run", "root", "foreground", "yes", "notDetermined", "askNextTime", "full", "1", "1", "-",
            ]
        )

        let legend = try locctl(["apps"], daemon)
        #expect(legend.output.hasPrefix("APP "))
        #expect(legend.output.hasSuffix("\n4 apps listed.\n"))

        let json = try locctl(["apps", "--json"], daemon)
        let listed = try admin.call("io.locd.Admin.ListApps")["apps"]
        #expect(JSONValue.parse(Array(json.output.utf8)) == listed)

        // The caller's own app of that id: root's, which is running.
        let one = try locctl(["app", "com.ex.run"], daemon)
        #expect(one.status == 0)
        #expect(one.output.hasPrefix("com.ex.run\n"))
        #expect(one.output.contains("    User: root (0)\n"))
        #expect(one.output.contains("   State: foreground (in use)\n"))
        #expect(one.output.contains("  Status: notDetermined\n"))
        #expect(one.output.contains("Settings: askNextTime\n"))
        #expect(one.output.contains(" com.ex.run  root  explicit  whenInUse "))

        let entry = try locctl(["app", "com.ex.maps", "--json"], daemon)
        let object = try #require(JSONValue.parse(Array(entry.output.utf8)))
        #expect(object["authorization"]?["settingsLabel"] == .string("never"))
        #expect(object["authorization"]?["status"] == .string("denied"))
    }

    @Test("locctl sessions and session ID: requirement, kind, state, flags, and a lingering deadline as \"in N s\"")
    func sessions() throws {
        let daemon = try DaemonProcess(settings: Self.slowRelaunch)
        try daemon.start()
        let admin = try daemon.authorize("com.ex.maps", "whileUsing")
        var maps: VarlinkClient? = try daemon.app("com.ex.maps")
        let created = try maps!.call("io.locd.App.CreateSession", ["authorization": .string("always")])
        let id = try #require(created.sessionID)
        let run = try daemon.app("com.ex.run")
        let pending = try #require(
            try run.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")]).sessionID
        )

        maps = nil  // The app's only client goes: its session lingers (L3).
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let sessions = try admin.call("io.locd.Admin.ListSessions")["sessions"]?.arrayValue ?? []
            if sessions.contains(where: { $0["id"] == .string(id) && $0["state"] == .string("lingering") }) { break }
            _ = admin.isClosedByPeer(within: 0.05)
        }

        let table = try locctl(["sessions", "--no-legend"], daemon)
        #expect(table.status == 0, "\(table.errors)")
        let lines = table.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        let lingering = try #require(lines.first { $0.hasPrefix(id + " ") })
        #expect(lingering.contains(" com.ex.maps  root  explicit  always "))
        #expect(lingering.contains(" lingering "))
        #expect(lingering.range(of: #" in [1-4]\d\.\d s "#, options: .regularExpression) != nil, "\(lingering)")
        let other = try #require(lines.first { $0.hasPrefix(pending + " ") })
        #expect(other.hasSuffix(" authorizationRequestInProgress"), "\(other)")

        let onlyRun = try locctl(["sessions", "--app", "com.ex.run", "--json"], daemon)
        let array = try #require(JSONValue.parse(Array(onlyRun.output.utf8))?.arrayValue)
        #expect(array.map { $0["id"] } == [.string(pending)])
        #expect(array.first?["diagnostic"]?["flags"] == .array([.string("authorizationRequestInProgress")]))

        let detail = try locctl(["session", id], daemon)
        #expect(detail.status == 0)
        #expect(detail.output.hasPrefix("Session \(id)\n"))
        #expect(detail.output.contains("Requirement: always\n"))
        #expect(detail.output.contains("      State: lingering\n"))
        #expect(detail.output.range(of: #"Lingering: ends in [1-4]\d\.\d s"#, options: .regularExpression) != nil)
        // L13: beside the diagnostic, the app's state and who decided it (no desktop here: the app's own word).
        let limited = try locctl(["session", pending], daemon)
        #expect(limited.output.contains("authorizationRequestInProgress"), "\(limited.output)")
        #expect(limited.output.contains("  App state: foreground, the app's own word\n"), "\(limited.output)")

        let json = try locctl(["session", id, "--json"], daemon)
        let session = try #require(JSONValue.parse(Array(json.output.utf8)))
        #expect(session["state"] == .string("lingering"))
        #expect((session["remainingSeconds"]?.doubleValue ?? 0) > 10)
    }

    @Test("locctl: an app, session or prompt that does not exist exits 4 with the Varlink error name")
    func notFound() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let cases: [([String], String)] = [
            (["app", "com.ex.nothing"], "io.locd.Admin.NoSuchApp"),
            (["auth", "com.ex.nothing", "never"], "io.locd.Admin.NoSuchApp"),
            (["location-button", "com.ex.nothing"], "io.locd.Admin.NoSuchApp"),
            (["sessions", "--app", "com.ex.nothing"], "io.locd.Admin.NoSuchApp"),
            (["session", "s9-9"], "io.locd.App.NoSuchSession"),
        ]
        for (arguments, name) in cases {
            let result = try locctl(arguments, daemon)
            #expect(result.status == 4, "\(arguments)")
            #expect(result.errors.hasPrefix("locctl: \(name): "), "\(arguments): \(result.errors)")
            #expect(result.errors.count > "locctl: \(name): ".count + 10, "a message saying what to do")
            #expect(result.output.isEmpty)
        }
    }

    @Test("locctl: a command line it cannot parse exits 1 and says what is allowed")
    func usageError() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let result = try locctl(["auth", "com.ex.maps", "sometimes"], daemon)
        #expect(result.status == 1)
        #expect(result.errors.contains("while-using"))
        let services = try locctl(["services"], daemon)
        #expect(services.status == 1)
    }

    @Test("A3: locctl auth sets the record as Settings would, --precise the accuracy; location-button grants once")
    func control() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        // An administrator's setting names no user: it is every user's (H5).
        let always = try locctl(["auth", "com.ex.maps", "always"], daemon)
        #expect(always.status == 0, "\(always.errors)")
        #expect(
            always.output
                == "com.ex.maps: authorizedAlways, Settings always, accuracy full\n"
                + "  for every user; users may choose only a stricter setting\n"
        )

        let approximate = try locctl(["auth", "com.ex.maps", "--precise", "off", "--json"], daemon)
        let record = try #require(JSONValue.parse(Array(approximate.output.utf8)))
        #expect(record["status"] == .string("authorizedAlways"))
        #expect(record["accuracy"] == .string("reducedAccuracy"))

        let askAgain = try locctl(["auth", "com.ex.maps", "ask-next-time"], daemon)
        #expect(askAgain.output.hasPrefix("com.ex.maps: notDetermined, Settings askNextTime"))

        let run = try daemon.app("com.ex.run")
        let pressed = try locctl(["location-button", "com.ex.run"], daemon)
        #expect(pressed.status == 0, "\(pressed.errors)")
        #expect(pressed.output == "com.ex.run: authorizedWhenInUse (one-time), Settings askNextTime, accuracy full\n")
        let authorization = try run.call("io.locd.App.GetAuthorization")["authorization"]
        #expect(authorization?["oneTime"] == .bool(true))

        #expect(try locctl(["reload"], daemon).status == 0)
    }

    @Test("A4: locctl services off turns location services off for every app, and on again")
    func services() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let off = try locctl(["services", "off"], daemon)
        #expect(off.status == 0)
        #expect(off.output.isEmpty)
        #expect(try locctl(["status"], daemon).output.contains("Location services: off\n"))
        let admin = try daemon.connect()
        #expect(try admin.call("io.locd.Admin.Status")["status"]?["locationServicesEnabled"] == .bool(false))
        #expect(try locctl(["services", "on"], daemon).status == 0)
        #expect(try admin.call("io.locd.Admin.Status")["status"]?["locationServicesEnabled"] == .bool(true))
    }

    /// Flips location services until `watch` prints the change: Admin.Watch sends nothing until an
    /// event, so only a printed event shows that locd has registered the watcher.
    private func firstServicesLine(_ watch: RunningLocctl, _ daemon: DaemonProcess, json: Bool) throws -> String? {
        let admin = try daemon.connect()
        var enabled = true
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            enabled.toggle()
            try admin.call("io.locd.Admin.SetLocationServices", ["enabled": .bool(enabled)])
            if let line = watch.line(within: 0.5, where: { $0.contains("servicesChanged") }) { return line }
        }
        return nil
    }

    @Test("locctl watch prints one line per event as it happens and ends 0 on Ctrl-C")
    func watch() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let watch = try RunningLocctl(["watch"], socket: daemon.socketPath)
        let first = try #require(try firstServicesLine(watch, daemon, json: false), "\(watch.transcript)")
        #expect(
            first.range(of: #"^\d\d:\d\d:\d\d\.\d{3} servicesChanged +- - (on|off)$"#, options: .regularExpression)
                != nil,
            "\(first)"
        )
        try daemon.connect().call("io.locd.Admin.SetLocationServices", ["enabled": .bool(true)])

        let maps = try daemon.app("com.ex.maps")
        let id = try #require(
            try maps.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")]).sessionID
        )
        // H1: the app is root's, which the line names beside it.
        let created = watch.line(within: 10) { $0.contains("sessionCreated") }
        #expect(
            created?.hasSuffix(" sessionCreated       com.ex.maps[root] \(id) explicit whenInUse") == true,
            "\(watch.transcript)"
        )
        let prompt = watch.line(within: 10) { $0.contains("promptRaised") }
        #expect(prompt?.contains(" com.ex.maps[root] - p") == true, "\(watch.transcript)")
        #expect(watch.stop(with: SIGINT) == 0)
    }

    @Test("locctl watch --json prints each Event as one JSON object per line")
    func watchJSON() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let watch = try RunningLocctl(["watch", "--json"], socket: daemon.socketPath)
        let first = try #require(try firstServicesLine(watch, daemon, json: true), "\(watch.transcript)")
        let event = try #require(JSONValue.parse(Array(first.utf8)))
        #expect(event["kind"] == .string("servicesChanged"))
        #expect(event["detail"] == .string("on") || event["detail"] == .string("off"))
        #expect(event["appId"] == nil)
        #expect((event["timestamp"]?.doubleValue ?? 0) > 1_600_000_000)
        #expect(watch.stop(with: SIGTERM) == 0)
    }

    @Test("P1: locctl agent --answer allowWhileUsing answers a session's prompt and the app is authorized")
    func automaticAgent() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let maps = try daemon.app("com.ex.maps")
        let created = try maps.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        #expect(created.flags == ["authorizationRequestInProgress"])

        let agent = try RunningLocctl(
            ["agent", "--answer", "allowWhileUsing", "--precise", "off"],
            socket: daemon.socketPath
        )
        let answered = agent.line(within: 15) { $0.contains("answered ") }
        #expect(answered?.hasSuffix(": allowWhileUsing (approximate)") == true, "\(agent.transcript)")
        #expect(agent.transcript.contains("  \"Shows you on the map\""))
        let authorization = try maps.call("io.locd.App.GetAuthorization")["authorization"]
        #expect(authorization?["status"] == .string("authorizedWhenInUse"))
        #expect(authorization?["accuracy"] == .string("reducedAccuracy"))
        #expect(agent.stop() == 0)
    }

    /// The agents locd counts, as `locctl status` shows them.
    private func agents(_ daemon: DaemonProcess) throws -> Int64? {
        try daemon.connect().call("io.locd.Admin.Status")["status"]?["agents"]?.intValue
    }

    @Test("P8, F13: locctl agent answers a prompt that comes after idle-timeout: no silent connection is left to close")
    func agentOutlivesIdleTimeout() throws {
        let daemon = try DaemonProcess(settings: DaemonProcess.fastLifecycle + "\n[limits]\nidle-timeout = 0.5")
        try daemon.start()
        let agent = try RunningLocctl(["agent", "--answer", "allowWhileUsing"], socket: daemon.socketPath)
        #expect(try eventually(timeout: 15) { try agents(daemon) == 1 }, "\(agent.transcript)")
        // A connection opened after the agent's and left silent: once locd has closed it, idle-timeout has passed
        // for every connection the agent opened before it.
        let probe = try daemon.connect()
        #expect(throws: VarlinkClient.ClientError.closed) { try probe.receive() }
        let maps = try daemon.app("com.ex.maps")
        try maps.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        let answered = agent.line(within: 15) { $0.contains("answered ") }
        #expect(answered?.hasSuffix(": allowWhileUsing") == true, "\(agent.transcript)")
        let authorization = try maps.call("io.locd.App.GetAuthorization")["authorization"]
        #expect(authorization?["status"] == .string("authorizedWhenInUse"))
        #expect(agent.stop() == 0)
    }

    @Test("P8: locctl agent waits for locd across a restart and answers the prompts of the new daemon")
    func agentSurvivesRestart() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let agent = try RunningLocctl(["agent", "--answer", "allowWhileUsing"], socket: daemon.socketPath)
        #expect(try eventually(timeout: 15) { try agents(daemon) == 1 }, "\(agent.transcript)")
        daemon.stop()
        #expect(agent.line(within: 15) { $0.contains("waiting for locd to come back") } != nil, "\(agent.transcript)")
        try daemon.start()
        #expect(agent.line(within: 60) { $0.contains("connected to locd again") } != nil, "\(agent.transcript)")
        let maps = try daemon.app("com.ex.maps")
        try maps.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        #expect(agent.line(within: 15) { $0.contains("answered ") } != nil, "\(agent.transcript)")
        let authorization = try maps.call("io.locd.App.GetAuthorization")["authorization"]
        #expect(authorization?["status"] == .string("authorizedWhenInUse"))
        #expect(agent.stop() == 0)
    }

    @Test("P1: an answer piped into locctl agent before its prompt comes answers it, and the agent then ends 0")
    func answerPipedAhead() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let agent = try RunningLocctl(["agent"], socket: daemon.socketPath, input: true)
        agent.input?.fileHandleForWriting.write(Data("1\n".utf8))
        try agent.closeInput()
        #expect(try eventually(timeout: 15) { try agents(daemon) == 1 }, "\(agent.transcript)")
        let maps = try daemon.app("com.ex.maps")
        try maps.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        #expect(agent.exitStatus(within: 15) == 0, "\(agent.transcript)")
        #expect(agent.transcript.contains { $0.contains("answered ") && $0.hasSuffix(": allowWhileUsing") })
        let authorization = try maps.call("io.locd.App.GetAuthorization")["authorization"]
        #expect(authorization?["status"] == .string("authorizedWhenInUse"))
    }

    @Test("A3: locctl agent hears a prompt withdrawn by an admin's change, and ends 0 at the end of its input")
    func agentWithdrawn() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let agent = try RunningLocctl(["agent"], socket: daemon.socketPath, input: true)
        let maps = try daemon.app("com.ex.maps")
        try maps.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        #expect(agent.line(within: 15) { $0.hasPrefix("  3) deny") } != nil, "\(agent.transcript)")

        try daemon.authorize("com.ex.maps", "whileUsing")
        let withdrawn = agent.line(within: 15) { $0.contains("withdrawn") }
        #expect(withdrawn?.hasPrefix("  prompt p") == true, "\(agent.transcript)")

        try agent.closeInput()
        #expect(agent.exitStatus(within: 15) == 0, "\(agent.transcript)")
    }

    @Test("M2: locctl reload waits for the reload: a manifest added before it is known after it")
    func reload() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        #expect(try locctl(["app", "com.ex.new"], daemon).status == 4)
        let manifest = """
            id = "com.ex.new"
            identity = "any"
            NSLocationWhenInUseUsageDescription = "New here"
            """
        try manifest.write(toFile: daemon.appsDirectory + "/com.ex.new.toml", atomically: true, encoding: .utf8)
        let reloaded = try locctl(["reload"], daemon)
        #expect(reloaded.status == 0, "\(reloaded.errors)")
        #expect(reloaded.output.isEmpty)
        let app = try locctl(["app", "com.ex.new"], daemon)
        #expect(app.status == 0, "\(app.errors)")
        #expect(app.output.hasPrefix("com.ex.new\n"))
    }

    @Test("M2: locctl reload of a configuration that does not load fails with InvalidParameter naming the key")
    func reloadRefused() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let config = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        try (config + "\nno-such-key = 1\n").write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        let refused = try locctl(["reload"], daemon)
        #expect(refused.status == 1)
        #expect(refused.errors.hasPrefix("locctl: org.varlink.service.InvalidParameter: "), "\(refused.errors)")
        #expect(refused.errors.contains(daemon.configPath), "\(refused.errors)")
        #expect(refused.errors.contains("no-such-key"), "\(refused.errors)")
        #expect(try locctl(["status"], daemon).status == 0)
    }

    @Test("P3: locctl agent on a terminal shows the prompt, refuses a wrong answer, and sends the typed one")
    func interactiveAgent() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let maps = try daemon.app("com.ex.maps")
        try maps.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])

        let steps: [[String]] = [
            ["expect", "com.ex.maps would like to use your location"],
            ["expect", "\"Shows you on the map\""],
            ["expect", "3) deny"],
            ["expect", "Answer (1-3 or an option name): "],
            ["send", "maybe\n"],
            ["expect", "maybe is not an option here"],
            ["expect", "Answer (1-3 or an option name): "],
            ["send", "3\n"],
            ["expect", "answered p"],
        ]
        let transcript = try runOnTerminal(steps, ["agent"], daemon)
        #expect(transcript.status == 0, "\(transcript.output)")
        #expect(transcript.output.contains(": deny"))
        let authorization = try maps.call("io.locd.App.GetAuthorization")["authorization"]
        #expect(authorization?["status"] == .string("denied"))
        #expect(authorization?["settingsLabel"] == .string("never"))
    }

    @Test("6.1: locctl agent on a terminal takes \"1 approximate\" as allowWhileUsing with reduced accuracy")
    func interactiveAccuracy() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let maps = try daemon.app("com.ex.maps")
        try maps.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        let steps: [[String]] = [
            ["expect", "Precise location: on"],
            ["expect", "Answer (1-3 or an option name): "],
            ["send", "1 approximate\n"],
            ["expect", "allowWhileUsing (approximate)"],
        ]
        let transcript = try runOnTerminal(steps, ["agent"], daemon)
        #expect(transcript.status == 0, "\(transcript.output)")
        let authorization = try maps.call("io.locd.App.GetAuthorization")["authorization"]
        #expect(authorization?["status"] == .string("authorizedWhenInUse"))
        #expect(authorization?["accuracy"] == .string("reducedAccuracy"))
    }

    @Test("locctl on a terminal is coloured, and not with NO_COLOR set")
    func colourOnTerminal() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let coloured = try runOnTerminal([["expect", "\u{1B}[32mon\u{1B}[0m"]], ["status"], daemon)
        #expect(coloured.status == 0, "\(coloured.output)")
        let plain = try runOnTerminal([["expect", "Location services: on\r\n"]], ["status"], daemon, noColor: true)
        #expect(plain.status == 0, "\(plain.output)")
        #expect(!plain.output.contains("\u{1B}["))
    }

    @Test("L1, H4: locctl app-state moves a running app, --user names whose, and exits 4 for an app that is not there")
    func appState() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let run = try daemon.app("com.ex.run")
        defer { withExtendedLifetime(run) {} }
        let moved = try locctl(["app-state", "com.ex.run", "background"], daemon)
        #expect(moved.status == 0, "\(moved.errors)")
        #expect(moved.output.isEmpty)
        #expect(try locctl(["app", "com.ex.run"], daemon).output.contains("   State: background"))
        let back = try locctl(["app-state", "com.ex.run", "foreground", "--user", "root"], daemon)
        #expect(back.status == 0, "\(back.errors)")
        #expect(try locctl(["app", "com.ex.run", "--user", "0"], daemon).output.contains("   State: foreground"))
        let missing = try locctl(["app-state", "com.ex.nothing", "foreground"], daemon)
        #expect(missing.status == 4)
        #expect(missing.errors.hasPrefix("locctl: io.locd.Admin.NoSuchApp: "))
    }

    // MARK: An ordinary user (SEMANTICS §15), run as nobody through setpriv.

    /// `locctl` run as nobody, who may not administer (I3: the test daemon's admin group is root).
    private func asNobody(_ arguments: [String], _ daemon: DaemonProcess) throws -> LocctlBinary.Result {
        try LocctlBinary.run(arguments, socket: daemon.socketPath, as: LocctlBinary.nobody)
    }

    /// Nobody's com.ex.maps says Hello and opens a session, which raises its prompt; the process stays while
    /// `person` does, so the prompt stays raised.
    private func openNobodysMaps(_ person: Person) throws {
        let hello = try person.call(1, "io.locd.App.Hello", ["appId": .string("com.ex.maps")])
        #expect(hello.error == nil, "\(hello)")
        let session = try person.call(1, "io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        #expect(session.error == nil, "\(session)")
    }

    @Test(
        "H4: an ordinary user's locctl apps lists only their own apps, and locctl auth sets their own app alone",
        .enabled(if: getuid() == 0, "running locctl as another user needs root")
    )
    func ordinaryUserOwnApps() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let maps = try daemon.app("com.ex.maps")  // Root's app, running while the test does.
        defer { withExtendedLifetime(maps) {} }

        // H2: setting an installed app makes the user's app of it, before the app first asks.
        let set = try asNobody(["auth", "com.ex.run", "whileUsing"], daemon)
        #expect(set.status == 0, "\(set.errors)")
        #expect(set.output == "com.ex.run: authorizedWhenInUse, Settings whileUsing, accuracy full\n")

        let table = try asNobody(["apps", "--no-legend"], daemon)
        #expect(table.status == 0, "\(table.errors)")
        let rows = table.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(
            rows.contains([
                "com.ex.run", "nobody", "notRunning", "no", "authorizedWhenInUse", "whileUsing", "full", "0", "0", "-",
            ]),
            "\(rows)"
        )
        // H2: each installed app nobody has not run is listed as nobody's, at its defaults; never root's.
        #expect(
            rows.contains([
                "com.ex.maps", "nobody", "notRunning", "no", "notDetermined", "askNextTime", "full", "0", "0", "-",
            ]),
            "\(rows)"
        )
        #expect(rows.allSatisfy { $0.count > 1 && $0[1] == "nobody" }, "\(rows)")
        let json = try asNobody(["apps", "--json"], daemon)
        let listed = try #require(JSONValue.parse(Array(json.output.utf8))?.arrayValue)
        #expect(listed.allSatisfy { $0["user"] == .int(Int64(LocctlBinary.nobody)) })

        // Root's apps and the installed entries are untouched, and the administrator sees nobody's app beside them.
        let admin = try daemon.connect()
        let apps = try admin.call("io.locd.Admin.ListApps")["apps"]?.arrayValue ?? []
        let run = apps.filter { $0["appId"] == .string("com.ex.run") }
        #expect(run.count == 2)
        #expect(run.first { $0["user"] == nil }?["authorization"]?["settingsLabel"] == .string("askNextTime"))
        #expect(run.first { $0["user"] == .int(65534) }?["authorization"]?["settingsLabel"] == .string("whileUsing"))
        let everyone = try locctl(["apps", "--user", "nobody", "--no-legend"], daemon)
        let lines = everyone.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(lines.allSatisfy { $0.count > 1 && $0[1] == "nobody" }, "\(everyone.output)")
        #expect(lines.contains { $0.first == "com.ex.run" && $0.contains("whileUsing") }, "\(everyone.output)")

        // Root's running app of an installed id is not nobody's: nobody reaches their own, at its defaults (H2, H4).
        let rootsApp = try asNobody(["app", "com.ex.maps"], daemon)
        #expect(rootsApp.status == 0, "\(rootsApp.output)\(rootsApp.errors)")
        #expect(rootsApp.output.contains("notDetermined") && !rootsApp.output.contains("foreground"))
        let sessions = try asNobody(["sessions", "--no-legend"], daemon)
        #expect(sessions.status == 0 && sessions.output.isEmpty, "\(sessions.output)\(sessions.errors)")
    }

    @Test(
        "H4: locctl auth --user root, sessions --user root, apps --user root and location-button by an ordinary user are refused with locd's PermissionDenied message",
        .enabled(if: getuid() == 0, "running locctl as another user needs root")
    )
    func ordinaryUserNamesNoOneElse() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let naming =
            "locctl: org.varlink.service.PermissionDenied: only an administrator may name another user's "
            + "apps: leave out the user to reach your own\n"
        for arguments in [
            ["auth", "com.ex.maps", "never", "--user", "root"], ["sessions", "--user", "root"],
            ["apps", "--user", "root"],
        ] {
            let refused = try asNobody(arguments, daemon)
            #expect(refused.status == 1, "\(arguments)")
            #expect(refused.errors == naming, "\(arguments)")
            #expect(refused.output.isEmpty, "\(arguments)")
        }
        // Naming oneself is naming one's own apps.
        let own = try asNobody(["auth", "com.ex.maps", "never", "--user", "nobody"], daemon)
        #expect(own.status == 0, "\(own.errors)")
        #expect(own.output.hasPrefix("com.ex.maps of user nobody (65534): denied, Settings never"))

        let button = try asNobody(["location-button", "com.ex.maps"], daemon)
        #expect(button.status == 1)
        #expect(
            button.errors.hasPrefix(
                "locctl: org.varlink.service.PermissionDenied: io.locd.Admin.LocationButton is for "
            ),
            "\(button.errors)"
        )
        let kiosk = try asNobody(["agent", "--all-users", "--answer", "deny"], daemon)
        #expect(kiosk.status == 1)
        #expect(
            kiosk.errors.hasPrefix(
                "locctl: org.varlink.service.PermissionDenied: io.locd.Admin.Prompts(everyone) is for "
            ),
            "\(kiosk.errors)"
        )
        // Root's own app was never touched.
        let apps = try daemon.connect().call("io.locd.Admin.ListApps")["apps"]?.arrayValue ?? []
        #expect(!apps.contains { $0["user"] == .int(0) })
    }

    @Test(
        "H5: an administrator's locctl auth is every user's setting and ceiling; an ordinary user may choose only a stricter one",
        .enabled(if: getuid() == 0, "running locctl as another user needs root")
    )
    func policyCeiling() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let policy = try locctl(["auth", "com.ex.maps", "while-using", "--precise", "off"], daemon)
        #expect(policy.status == 0, "\(policy.errors)")
        #expect(policy.output.hasSuffix("\n  for every user; users may choose only a stricter setting\n"))

        let looser = try asNobody(["auth", "com.ex.maps", "always"], daemon)
        #expect(looser.status == 1)
        #expect(
            looser.errors
                == "locctl: org.varlink.service.PermissionDenied: an administrator set com.ex.maps for every user (at "
                + "most whileUsing, approximate locations only): choose a stricter setting, or ask an administrator\n"
        )
        let stricter = try asNobody(["auth", "com.ex.maps", "never"], daemon)
        #expect(stricter.status == 0, "\(stricter.errors)")
        #expect(stricter.output == "com.ex.maps: denied, Settings never, accuracy reduced\n")

        let table = try locctl(["apps", "--no-legend"], daemon)
        let maps = table.output.split(separator: "\n").filter { $0.hasPrefix("com.ex.maps ") }
        #expect(maps.count == 2, "the entry of no user and nobody's app: \(table.output)")
        #expect(maps.allSatisfy { $0.hasSuffix("  whileUsing max, approximate") }, "\(table.output)")
    }

    @Test(
        "H6: an ordinary user's locctl services off turns location off for them alone, and says so",
        .enabled(if: getuid() == 0, "running locctl as another user needs root")
    )
    func ordinaryUserServices() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let off = try asNobody(["services", "off"], daemon)
        #expect(off.status == 0, "\(off.errors)")
        #expect(
            off.output == "Location services are off for you only; an administrator turns them off for the machine.\n"
        )
        let theirs = try asNobody(["status"], daemon)
        #expect(theirs.output.contains(" Location services: on (off for you)\n"), "\(theirs.output)")
        let mine = try locctl(["status"], daemon)
        #expect(mine.output.contains("   Location services: on\n"), "\(mine.output)")
        let status = try daemon.connect().call("io.locd.Admin.Status")["status"]
        #expect(status?["locationServicesEnabled"] == .bool(true))

        let on = try asNobody(["services", "on"], daemon)
        #expect(on.output == "Location services are on for you.\n")
        #expect(try asNobody(["status"], daemon).output.contains(" Location services: on\n"))
    }

    @Test(
        "H4: an ordinary user's locctl status shows their own apps using location and no provider's place",
        .enabled(if: getuid() == 0, "running locctl as another user needs root")
    )
    func ordinaryUserStatus() throws {
        let daemon = try DaemonProcess(
            settings: DaemonProcess.fastLifecycle + "\n[provider]\nkind = \"static\"\nlatitude = 35.681236\n"
                + "longitude = 139.767125\naccuracy = 5.0\n"
        )
        try daemon.start()
        try daemon.authorize("com.ex.maps", "whileUsing")
        let maps = try daemon.app("com.ex.maps")
        try maps.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])

        let mine = try locctl(["status"], daemon)
        #expect(mine.output.contains("      Using location: com.ex.maps\n"), "\(mine.output)")
        #expect(mine.output.contains("35.681236"), "an administrator sees where the provider is: \(mine.output)")

        let theirs = try asNobody(["status"], daemon)
        #expect(theirs.status == 0, "\(theirs.errors)")
        #expect(theirs.output.contains(" Your apps using location: none\n"), "\(theirs.output)")
        #expect(!theirs.output.contains("35.68") && !theirs.output.contains("139.76"), "\(theirs.output)")
        #expect(theirs.output.contains("            Sessions: 1 "), "the machine's counts, in aggregate")
        let json = try asNobody(["status", "--json"], daemon)
        let status = try #require(JSONValue.parse(Array(json.output.utf8)))
        #expect(status["administrator"] == .bool(false))
        #expect(status["provider"]?["source"] == nil && status["provider"]?["lastLatitude"] == nil)
    }

    @Test(
        "H7: an ordinary user's locctl agent answers their own apps' prompts and is offered no one else's",
        .enabled(if: getuid() == 0, "running locctl as another user needs root")
    )
    func ordinaryUserAgent() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        // Root's prompt first: were it offered to nobody's agent, it would be the first shown.
        let run = try daemon.app("com.ex.run")
        try run.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        let agent = try RunningLocctl(
            ["agent", "--answer", "allowWhileUsing"],
            socket: daemon.socketPath,
            as: LocctlBinary.nobody
        )
        let nobody = try Person(socket: daemon.socketPath, uid: LocctlBinary.nobody)
        defer { withExtendedLifetime(nobody) {} }
        try openNobodysMaps(nobody)

        let answered = agent.line(within: 15) { $0.contains("answered ") }
        #expect(answered?.hasSuffix(": allowWhileUsing") == true, "\(agent.transcript)")
        let shown = agent.transcript.filter { $0.contains(" would like to use your location") }
        #expect(shown.count == 1 && shown.first?.hasPrefix("com.ex.maps ") == true, "\(agent.transcript)")
        #expect(!agent.transcript.contains { $0.contains("for user") }, "its own app's prompt names no user")
        #expect(agent.stop() == 0)

        let apps = try daemon.connect().call("io.locd.Admin.ListApps")["apps"]?.arrayValue ?? []
        let label = { (appID: String, user: Int64) in
            apps.first { $0["appId"] == .string(appID) && $0["user"] == .int(user) }?["authorization"]?["status"]
        }
        #expect(label("com.ex.maps", 65534) == .string("authorizedWhenInUse"))
        #expect(label("com.ex.run", 0) == .string("notDetermined"), "root's prompt is root's to answer")
    }

    @Test(
        "H7: an administrator's locctl agent --all-users is offered every user's prompts and names the user of each",
        .enabled(if: getuid() == 0, "running locctl as another user needs root")
    )
    func everyUsersAgent() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let agent = try RunningLocctl(["agent", "--all-users", "--answer", "deny"], socket: daemon.socketPath)
        let nobody = try Person(socket: daemon.socketPath, uid: LocctlBinary.nobody)
        defer { withExtendedLifetime(nobody) {} }
        try openNobodysMaps(nobody)

        let answered = agent.line(within: 15) { $0.contains("answered ") }
        #expect(answered?.hasSuffix(": deny") == true, "\(agent.transcript)")
        #expect(agent.transcript.contains("  for user nobody (65534)"), "\(agent.transcript)")
        #expect(agent.stop() == 0)
        let apps = try daemon.connect().call("io.locd.Admin.ListApps")["apps"]?.arrayValue ?? []
        let nobodys = apps.first { $0["appId"] == .string("com.ex.maps") && $0["user"] == .int(65534) }
        #expect(nobodys?["authorization"]?["settingsLabel"] == .string("never"))
    }

    /// Runs locctl on a pseudo-terminal through `Scripts/pty_agent.py`, which types and waits as `steps` say.
    private func runOnTerminal(
        _ steps: [[String]],
        _ arguments: [String],
        _ daemon: DaemonProcess,
        noColor: Bool = false
    ) throws -> (status: Int32, output: String) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Scripts/pty_agent.py").path
        let stepsJSON = JSONValue.array(steps.map { .array($0.map { .string($0) }) }).serialized
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, stepsJSON, LocctlBinary.binary] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LOCD_SOCKET"] = daemon.socketPath
        environment["TERM"] = "xterm"
        environment.removeValue(forKey: "NO_COLOR")
        if noColor { environment["NO_COLOR"] = "1" }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        return (process.waitForExit().status, String(decoding: data, as: UTF8.self))
    }
}
