import Foundation
import JSON
import LocationProtocol
import LocationTestSupport
import Testing
import Varlink

@testable import LocationClient

#if canImport(Glibc)
import Glibc
#endif

/// `LocationClient` against the real daemon over its real socket.
@Suite("LocationClient", .serialized)
struct ClientLibraryTests {
    /// Retries at most 200 ms apart, well inside the test daemon's 2 s relaunch window.
    static let quickReconnection = ReconnectPolicy(maximumDelay: .milliseconds(200), giveUpAfter: .seconds(30))

    @Test("I1: connect says Hello for the app: the daemon counts its client, and authorization reads its record")
    func connectSaysHello() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try await LocationClient.connect(appID: "com.ex.maps", socketPath: daemon.socketPath)
        #expect(try appEntry(daemon, "com.ex.maps")?["clients"] == .int(1))
        #expect(try await client.authorization.status == .notDetermined)

        try daemon.authorize("com.ex.maps", "always")
        let authorization = try await client.authorization
        #expect(authorization.status == .authorizedAlways)
        #expect(authorization.settingsLabel == .always)
        await client.close()
        #expect(try await eventually { try appEntry(daemon, "com.ex.maps")?["clients"] == .int(0) })
    }

    @Test("M3: connecting as an app with no manifest fails with AppUnknown, saying which file to install")
    func unknownApp() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let error = await #expect(throws: LocationClientError.self) {
            try await LocationClient.connect(appID: "com.ex.nobody", socketPath: daemon.socketPath)
        }
        guard case .appUnknown(let appID, let message)? = error else {
            Issue.record("expected AppUnknown, got \(String(describing: error))")
            return
        }
        #expect(appID == "com.ex.nobody")
        #expect(message.contains("apps.d/com.ex.nobody.toml"))
        #expect(error?.varlinkName == "io.locd.App.AppUnknown")
    }

    @Test("Connecting where no daemon listens fails with daemonUnavailable naming the socket")
    func noDaemon() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("locd-none-\(UUID())").path
        let error = await #expect(throws: LocationClientError.self) {
            try await LocationClient.connect(appID: "com.ex.maps", socketPath: path)
        }
        guard case .daemonUnavailable(let socket, _)? = error else {
            Issue.record("expected daemonUnavailable, got \(String(describing: error))")
            return
        }
        #expect(socket == path)
        #expect(error?.message.contains("is locd running?") == true)
        #expect(error?.message.contains("No such file or directory") == true)
        // The library's hint, not locctl's: an app has no --socket.
        #expect(error?.message.contains("--socket") == false)
    }

    @Test("The default socket: LOCD_SOCKET, else a user daemon's under XDG_RUNTIME_DIR, else the system one")
    func defaultSocket() {
        let user = "/run/user/1000/locd/io.locd"
        #expect(DefaultSocket.path(environment: ["LOCD_SOCKET": "/tmp/x"], exists: { _ in true }) == "/tmp/x")
        let runtime = ["XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(DefaultSocket.path(environment: runtime, exists: { $0 == user }) == user)
        #expect(DefaultSocket.path(environment: runtime, exists: { _ in false }) == "/run/locd/io.locd")
        #expect(
            DefaultSocket.path(environment: ["XDG_RUNTIME_DIR": "relative"], exists: { _ in true })
                == "/run/locd/io.locd"
        )
        #expect(DefaultSocket.path(environment: [:], exists: { _ in true }) == "/run/locd/io.locd")
    }

    @Test("Wire names: the client's enums, flags and errors spell exactly what the io.locd.App IDL declares")
    func wireNames() throws {
        let idl = LocationInterfaces.app
        // Every enum of the IDL, as the list of its values: `name: (a, b)`, `name: ?(a, b)`, `name: [](a, b)`.
        let enumPattern = try Regex(#":\s*(?:\?|\[\])?\(([a-zA-Z,\s]+)\)"#)
        let enums = idl.matches(of: enumPattern).map { match in
            String(match.output[1].substring ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        #expect(enums.contains(Authorization.Status.allCases.map(\.rawValue)))
        #expect(enums.contains(Authorization.Accuracy.allCases.map(\.rawValue)))
        #expect(enums.contains(Authorization.SettingsLabel.allCases.map(\.rawValue)))
        #expect(enums.contains(ServiceSession.AuthorizationRequirement.allCases.map(\.rawValue)))
        #expect(enums.contains(LocationUpdate.LiveConfiguration.allCases.map(\.rawValue)))
        #expect(enums.contains(Monitor.Event.State.allCases.map(\.rawValue)))
        #expect(enums.contains(AppState.allCases.map(\.rawValue)))
        #expect(enums.contains(DiagnosticFlags.names))
        for (bit, name) in DiagnosticFlags.names.enumerated() {
            #expect(DiagnosticFlags(names: [name]).rawValue == 1 << bit)
            #expect(DiagnosticFlags(rawValue: 1 << bit).names == [name])
        }

        // Each error with the parameters its IDL declares: a string "x" or the int 1.
        let errors = idl.matches(of: try Regex(#"error (\w+) \(([^)]*)\)"#)).map { match in
            let fields = (match.output[2].substring ?? "").split(separator: ",").map { field in
                let parts = field.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
                return (parts[0], parts[1] == "int" ? JSONValue.int(1) : .string("x"))
            }
            return ("io.locd.App." + String(match.output[1].substring ?? ""), fields)
        }
        #expect(errors.count == 8)
        for (name, fields) in errors {
            let parameters = JSONObject(fields + [("message", .string("do this"))])
            let error = LocationClientError(VarlinkError(name: name, parameters: parameters))
            #expect(error.varlinkName == name)
            #expect(error.message == "do this")
            if case .daemonError = error { Issue.record("\(name) has no case of its own") }
        }
    }

    @Test("U1: an update's location decodes with its optional fields present or absent")
    func locationDecoding() throws {
        let full: JSONValue = .object([
            "location": .object([
                "latitude": .double(35.681236), "longitude": .double(139.767125), "altitude": .double(40),
                "horizontalAccuracy": .double(5), "verticalAccuracy": .double(8), "speed": .double(1.5),
                "course": .double(90), "timestamp": .double(1_795_000_000.5),
            ]),
            "diagnostic": .object(["flags": .array([.string("accuracyLimited")]), "mask": .int(64)]),
        ])
        let update = try LocationUpdate(wire: full)
        #expect(update.location?.latitude == 35.681236)
        #expect(update.location?.altitude == 40)
        #expect(update.location?.course == 90)
        #expect(update.location?.timestamp == Date(timeIntervalSince1970: 1_795_000_000.5))
        #expect(update.accuracyLimited && !update.stationary)

        let sparse: JSONValue = .object([
            "location": .object([
                "latitude": .int(35), "longitude": .int(139), "horizontalAccuracy": .int(5000), "timestamp": .int(0),
            ]),
            "diagnostic": .object(["flags": .array([]), "mask": .int(0)]),
        ])
        let approximate = try LocationUpdate(wire: sparse).location
        #expect(approximate?.horizontalAccuracy == 5000)
        #expect(approximate?.altitude == nil && approximate?.speed == nil && approximate?.verticalAccuracy == nil)

        let none = try LocationUpdate(wire: .object(["diagnostic": .object(["flags": .array([]), "mask": .int(32)])]))
        #expect(none.location == nil && none.locationUnavailable)
        #expect(throws: LocationClientError.self) {
            try LocationUpdate(wire: .object(["location": .object(["latitude": .int(1)]), "diagnostic": .null]))
        }
    }

    @Test("S2: a session the manifest has no usage description for fails with UsageDescriptionMissing")
    func usageDescriptionMissing() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try await LocationClient.connect(appID: "com.ex.run", socketPath: daemon.socketPath)
        let error = await #expect(throws: LocationClientError.self) {
            try await client.serviceSession(authorization: .always)
        }
        guard case .usageDescriptionMissing(let key, let message)? = error else {
            Issue.record("expected UsageDescriptionMissing, got \(String(describing: error))")
            return
        }
        #expect(key == "NSLocationAlwaysAndWhenInUseUsageDescription")
        #expect(message.hasPrefix("add \(key) to "))
        #expect(error?.varlinkName == "io.locd.App.UsageDescriptionMissing")
        #expect(try daemon.connect().call("io.locd.Admin.ListSessions")["sessions"] == .array([]))
        await client.close()
    }

    @Test("D1: a session's diagnostics report authorizationDeniedGlobally while location services are off")
    func diagnosticsFollowTheSwitch() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let admin = try daemon.authorize("com.ex.maps", "whileUsing")
        let client = try await LocationClient.connect(appID: "com.ex.maps", socketPath: daemon.socketPath)
        let session = try await client.serviceSession(authorization: .whenInUse)
        let inbox = Inbox<ServiceSession.Diagnostic>.collecting(session.diagnostics)

        let first = try await inbox.element(0)
        #expect(first.flags.isEmpty)
        try admin.call("io.locd.Admin.SetLocationServices", ["enabled": .bool(false)])
        let off = try await inbox.element(1)
        #expect(off.authorizationDeniedGlobally && off.authorizationDenied)
        #expect(off.mask == DiagnosticFlags([.authorizationDenied, .authorizationDeniedGlobally]).rawValue)
        try admin.call("io.locd.Admin.SetLocationServices", ["enabled": .bool(true)])
        #expect(try await inbox.element(2).flags.isEmpty)
        await client.close()
    }

    @Test("S3: invalidate() ends the session: its diagnostics finish and the daemon no longer lists it")
    func invalidateEndsTheSession() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try await LocationClient.connect(appID: "com.ex.maps", socketPath: daemon.socketPath)
        let session = try await client.serviceSession(authorization: .none)
        let inbox = Inbox<ServiceSession.Diagnostic>.collecting(session.diagnostics)
        _ = try await inbox.element(0)
        session.invalidate()
        #expect(try await inbox.end() == .finished)
        #expect(try sessions(daemon, "com.ex.maps").isEmpty)
        await client.close()
    }

    @Test("S10: leaving a live-updates loop closes its stream on the wire, which ends its implicit session")
    func breakingOutClosesTheStream() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try daemon.authorize("com.ex.maps", "whileUsing")
        let client = try await LocationClient.connect(appID: "com.ex.maps", socketPath: daemon.socketPath)
        var received = 0
        for try await update in client.liveUpdates(.fitness) {
            #expect(!update.serviceSessionRequired)
            // While the loop runs, the stream holds the app's implicit session.
            #expect(try sessions(daemon, "com.ex.maps").map { $0["kind"] } == [.string("implicit")])
            received += 1
            break
        }
        #expect(received == 1)
        #expect(try await eventually { try sessions(daemon, "com.ex.maps").isEmpty })
        #expect(try appEntry(daemon, "com.ex.maps")?["clients"] == .int(1))
        await client.close()
    }

    @Test("U18: updates bound to a session end with it, and the next session's updates reuse their connection")
    func boundUpdatesReuseTheirConnection() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try daemon.authorize("com.ex.maps", "whileUsing")
        let client = try await LocationClient.connect(appID: "com.ex.maps", socketPath: daemon.socketPath)
        for round in 1...3 {
            let session = try await client.serviceSession(authorization: .whenInUse)
            let inbox = Inbox<LocationUpdate>.collecting(client.liveUpdates(session: session))
            _ = try await inbox.element(0)
            // The control connection and the stream's, the same one each round.
            #expect(try appEntry(daemon, "com.ex.maps")?["clients"] == .int(2), "round \(round)")
            await session.end()
            #expect(try await inbox.end() == .finished, "round \(round): the updates did not end with their session")
            // Kept open for the next stream: a closed one would be gone from the count within the second.
            let dropped = try await eventually(timeout: 1) {
                try appEntry(daemon, "com.ex.maps")?["clients"] != .int(2)
            }
            #expect(!dropped, "round \(round): the stream's connection was closed")
        }
        await client.close()
        #expect(try await eventually { try appEntry(daemon, "com.ex.maps")?["clients"] == .int(0) })
    }

    @Test("Cancelling the task that iterates diagnostics closes that stream's connection")
    func cancellingClosesTheConnection() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try await LocationClient.connect(appID: "com.ex.maps", socketPath: daemon.socketPath)
        let session = try await client.serviceSession(authorization: .none)
        let inbox = Inbox<ServiceSession.Diagnostic>.collecting(session.diagnostics)
        _ = try await inbox.element(0)
        // The control connection and the stream's.
        #expect(try appEntry(daemon, "com.ex.maps")?["clients"] == .int(2))
        inbox.cancel()
        #expect(try await eventually { try appEntry(daemon, "com.ex.maps")?["clients"] == .int(1) })
        // The session itself is untouched: only the stream ended.
        #expect(try sessions(daemon, "com.ex.maps").map { $0["id"] } == [.string(session.id)])
        await client.close()
    }

    @Test("R3: a daemon restart mid-stream: the same session is taken back and the loops carry on, never ended")
    func restartMidStream() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try daemon.authorize("com.ex.maps", "whileUsing")
        let client = try await LocationClient.connect(
            appID: "com.ex.maps",
            socketPath: daemon.socketPath,
            reconnection: Self.quickReconnection
        )
        let session = try await client.serviceSession(authorization: .whenInUse)
        let diagnostics = Inbox<ServiceSession.Diagnostic>.collecting(session.diagnostics)
        let updates = Inbox<LocationUpdate>.collecting(client.liveUpdates())
        #expect(try await diagnostics.element(0).flags.isEmpty)
        #expect(try await updates.element(0).authorizationDeniedGlobally == false)

        #expect(daemon.stop() == 0)
        try daemon.start()
        // The client reconnects by itself and resumes the session: it is active again, under the same id.
        let resumed = try await eventually {
            try sessions(daemon, "com.ex.maps").map { [$0["id"], $0["state"]] }
                == [[.string(session.id), .string("active")]]
        }
        #expect(resumed)

        // The loops started before the restart still run: they see a change made after it.
        try daemon.connect().call("io.locd.Admin.SetLocationServices", ["enabled": .bool(false)])
        #expect(try await diagnostics.element(1).authorizationDeniedGlobally)
        let afterRestart = try await updates.first { $0.authorizationDeniedGlobally }
        #expect(afterRestart.authorizationDenied)
        // No invalidation, no end, and not even the unchanged diagnostic repeated.
        #expect(await diagnostics.outcome == nil)
        #expect(await updates.outcome == nil)
        #expect(
            await diagnostics.elements.map(\.flags.names) == [
                [], ["authorizationDenied", "authorizationDeniedGlobally"],
            ]
        )
        #expect(try await client.authorization.status == .authorizedWhenInUse)
        try await client.goodbye()
        #expect(try await diagnostics.end() == .finished)
    }

    @Test("R3: after a crash (kill -9) too, the client takes its session back and its loop carries on")
    func crashMidStream() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try await LocationClient.connect(
            appID: "com.ex.maps",
            socketPath: daemon.socketPath,
            reconnection: Self.quickReconnection
        )
        let session = try await client.serviceSession(authorization: .none)
        let diagnostics = Inbox<ServiceSession.Diagnostic>.collecting(session.diagnostics)
        #expect(try await diagnostics.element(0).flags.isEmpty)
        daemon.crash()
        try daemon.start()
        let resumed = try await eventually {
            try sessions(daemon, "com.ex.maps").map { [$0["id"], $0["state"]] }
                == [[.string(session.id), .string("active")]]
        }
        #expect(resumed)
        try daemon.connect().call("io.locd.Admin.SetLocationServices", ["enabled": .bool(false)])
        #expect(try await diagnostics.element(1).authorizationDeniedGlobally)
        #expect(await diagnostics.outcome == nil)
        await client.close()
    }

    @Test("R3: a session the daemon no longer has after a restart ends its diagnostics with SessionInvalidated")
    func restartLosingTheSession() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try await LocationClient.connect(
            appID: "com.ex.maps",
            socketPath: daemon.socketPath,
            reconnection: Self.quickReconnection
        )
        let session = try await client.serviceSession(authorization: .none)
        let diagnostics = Inbox<ServiceSession.Diagnostic>.collecting(session.diagnostics)
        _ = try await diagnostics.element(0)
        #expect(daemon.stop() == 0)
        // The store is gone with the sessions in it: the restarted daemon cannot give this one back.
        try FileManager.default.removeItem(atPath: daemon.stateDirectory)
        try daemon.start()
        let end = try await diagnostics.end()
        #expect(end == .failed("io.locd.App.SessionInvalidated"))
        await client.close()
    }

    @Test("A3: authorizationUpdates yields the record at once, then each change an admin makes")
    func authorizationUpdates() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try await LocationClient.connect(appID: "com.ex.maps", socketPath: daemon.socketPath)
        let updates = Inbox<Authorization>.collecting(client.authorizationUpdates)
        #expect(try await updates.element(0).status == .notDetermined)
        let admin = try daemon.authorize("com.ex.maps", "never")
        let denied = try await updates.element(1)
        #expect(denied.status == .denied)
        #expect(denied.settingsLabel == .never)
        try admin.call(
            "io.locd.Admin.SetAuthorization",
            ["appId": .string("com.ex.maps"), "setting": .string("always"), "precise": .bool(false)]
        )
        let always = try await updates.element(2)
        #expect(always.status == .authorizedAlways && always.isAuthorized)
        #expect(always.accuracy == .reducedAccuracy)
        await client.close()
    }

    @Test("U4: a condition added to a Monitor is reported on the monitor's events")
    func monitorEvents() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try daemon.connect().call(
            "io.locd.Admin.SetAuthorization",
            ["appId": .string("com.ex.maps"), "setting": .string("always")]
        )
        let client = try await LocationClient.connect(appID: "com.ex.maps", socketPath: daemon.socketPath)
        let monitor = client.monitor(named: "places")
        let events = Inbox<Monitor.Event>.collecting(monitor.events)
        let home = Monitor.CircularGeographicCondition(
            center: Monitor.Coordinate(latitude: 35.68, longitude: 139.76),
            radius: 200
        )
        try await monitor.add(home, identifier: "home")
        let event = try await events.first { $0.identifier == "home" }
        #expect(event.monitor == "places")
        // The first event says the condition's state as of now: unknown until the provider's first fix, then
        // unsatisfied (the demo point is 650 m from the circle); which one depends on when the fix comes.
        #expect(event.state == .unknown || event.state == .unsatisfied, "\(event.state)")
        #expect(!event.conditionLimitExceeded && !event.authorizationDenied)
        // An empty identifier would read as an event about the whole monitor: it is refused before it is sent.
        await #expect(throws: LocationClientError.self) { try await monitor.add(home, identifier: "") }
        await client.close()
    }

    @Test("S14: another client of the app takes over a lingering session with resumeSession(id:)")
    func resumeLingeringSession() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let first = try await LocationClient.connect(appID: "com.ex.maps", socketPath: daemon.socketPath)
        let session = try await first.serviceSession(authorization: .none)
        await first.close()
        #expect(try await eventually { try sessions(daemon, "com.ex.maps").first?["state"] == .string("lingering") })
        let second = try await LocationClient.connect(appID: "com.ex.maps", socketPath: daemon.socketPath)
        let resumed = try await second.resumeSession(id: session.id)
        #expect(resumed.id == session.id)
        #expect(resumed.authorization == .none)
        #expect(try sessions(daemon, "com.ex.maps").first?["state"] == .string("active"))
        try await second.goodbye()
        #expect(try sessions(daemon, "com.ex.maps").isEmpty)
    }

    @Test("L1: connecting with state background launches the app in the background; setAppState moves it")
    func appState() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try await LocationClient.connect(
            appID: "com.ex.maps",
            socketPath: daemon.socketPath,
            state: .background
        )
        #expect(try appEntry(daemon, "com.ex.maps")?["state"] == .string("background"))
        try await client.setAppState(.foreground)
        #expect(try appEntry(daemon, "com.ex.maps")?["state"] == .string("foreground"))
        #expect(await client.appState == .foreground)
        await client.close()
    }

    @Test("S12: a background activity session keeps the app in use in the background, and survives a restart")
    func backgroundActivity() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try daemon.connect().call(
            "io.locd.Admin.SetAuthorization",
            ["appId": .string("com.ex.run"), "setting": .string("whileUsing")]
        )
        let client = try await LocationClient.connect(
            appID: "com.ex.run",
            socketPath: daemon.socketPath,
            reconnection: Self.quickReconnection
        )
        let activity = try await client.beginBackgroundActivity()
        try await client.setAppState(.background)
        let status = { try daemon.connect().call("io.locd.Admin.Status")["status"] }
        #expect(try status()?["appsUsingLocationInBackground"] == .array([.string("com.ex.run")]))

        #expect(daemon.stop() == 0)
        try daemon.start()
        let resumed = try await eventually {
            try sessions(daemon, "com.ex.run").map { [$0["id"], $0["kind"], $0["state"]] }
                == [[.string(activity.id), .string("backgroundActivity"), .string("active")]]
        }
        #expect(resumed)
        #expect(try status()?["appsUsingLocationInBackground"] == .array([.string("com.ex.run")]))
        activity.invalidate()
        #expect(try await eventually { try sessions(daemon, "com.ex.run").isEmpty })
        await client.close()
    }

    @Test("R3: when the daemon stays away past the policy's limit, streams and calls fail with daemonUnavailable")
    func givingUp() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try await LocationClient.connect(
            appID: "com.ex.maps",
            socketPath: daemon.socketPath,
            reconnection: ReconnectPolicy(maximumDelay: .milliseconds(100), giveUpAfter: .seconds(1))
        )
        let session = try await client.serviceSession(authorization: .none)
        let diagnostics = Inbox<ServiceSession.Diagnostic>.collecting(session.diagnostics)
        _ = try await diagnostics.element(0)
        #expect(daemon.stop() == 0)
        guard case .failed(let reason) = try await diagnostics.end() else {
            Issue.record("the diagnostics finished instead of failing")
            return
        }
        #expect(reason.hasPrefix("cannot reach locd at \(daemon.socketPath): "))
        let error = await #expect(throws: LocationClientError.self) { try await client.authorization }
        #expect(error?.message.hasPrefix("cannot reach locd at \(daemon.socketPath): ") == true)
    }

    /// The built `locd-example`, and the manifests that let it in as `com.example.maps`.
    static let exampleApp = URL(fileURLWithPath: DaemonProcess.binary).deletingLastPathComponent()
        .appendingPathComponent("locd-example").path
    static var exampleManifests: [String: String] {
        var manifests = DaemonProcess.standardManifests
        manifests["com.example.maps"] = """
            id = "com.example.maps"
            identity = "any"
            NSLocationWhenInUseUsageDescription = "Maps shows where you are"
            """
        return manifests
    }

    @Test("The example app runs against the daemon and is listed as using location, then says Goodbye")
    func exampleApp() async throws {
        let daemon = try DaemonProcess(manifests: Self.exampleManifests)
        try daemon.start()
        try daemon.authorize("com.example.maps", "whileUsing")

        let example = Process()
        example.executableURL = URL(fileURLWithPath: Self.exampleApp)
        example.arguments = ["--socket", daemon.socketPath, "--seconds", "60"]
        let output = Pipe()
        let collected = CollectedOutput(output.fileHandleForReading)
        example.standardOutput = output
        example.standardError = output
        try example.run()
        defer { if example.isRunning { kill(example.processIdentifier, SIGKILL) } }

        // The app prints its session's diagnostic and the first update as they arrive.
        let printed = try await eventually(timeout: 30, every: 0.02) {
            let text = collected.text
            return text.contains("diagnostic: nothing limits location\n") && text.contains("update: ")
        }
        #expect(printed, "\(collected.text)")
        let status = try daemon.connect().call("io.locd.Admin.Status")["status"]
        #expect(status?["appsUsingLocation"] == .array([.string("com.example.maps")]))

        let ended = example.signalAndWait(SIGINT)
        let text = collected.finish()
        #expect(ended.status == 0, "\(text)")
        #expect(text.contains("as com.example.maps: authorizedWhenInUse\n"))
        #expect(text.hasSuffix("goodbye\n"))
        // Goodbye ended its session at once: nothing lingers.
        #expect(try sessions(daemon, "com.example.maps").isEmpty)
    }

    /// A daemon that lets `com.example.maps` in and authorizes it, and the example app as a shell's job on a
    /// terminal of its own, started as `locd-example … &` (`job_control.py` reads `fg`, `stop` and `bg`).
    static func exampleAppInBackground(_ arguments: [String] = []) throws -> (DaemonProcess, ScriptProcess) {
        let daemon = try DaemonProcess(manifests: exampleManifests)
        try daemon.start()
        try daemon.authorize("com.example.maps", "whileUsing")
        let shell = try ScriptProcess(
            [
                "/usr/bin/python3", ScriptProcess.fixture("job_control.py"), exampleApp, "--socket", daemon.socketPath,
                "--seconds", "120",
            ] + arguments,
            logPath: daemon.directory.appendingPathComponent("job.log").path
        )
        return (daemon, shell)
    }

    @Test("L9: an app started with & on a terminal is in the background; fg, Ctrl-Z and bg move it, as job control")
    func terminalJobControl() async throws {
        let (daemon, shell) = try Self.exampleAppInBackground()
        defer { shell.stop() }
        let state = { try appEntry(daemon, "com.example.maps")?["state"]?.stringValue }
        #expect(shell.waitFor("connected to \(daemon.socketPath) as com.example.maps"), "\(shell.log)")
        #expect(try state() == "background", "started with &: its process group is not the terminal's")

        for (command, expected) in [("fg", "foreground"), ("stop", "foreground"), ("bg", "background")] {
            shell.send(command)
            #expect(shell.waitFor { $0["done"] == .string(command) } != nil, "\(shell.log)")
            // Stopped by Ctrl-Z, the app cannot look: it stays as it was until `bg` continues it.
            let moved = try await eventually(timeout: 10) { try state() == expected }
            #expect(moved, "after \(command): \(String(describing: try? state()))")
        }
        shell.send("fg")
        #expect(try await eventually(timeout: 10) { try state() == "foreground" })
        shell.closeInput()
        #expect(shell.waitFor { $0["exit"] != nil }?["exit"] == .int(0), "\(shell.log)")
        #expect(shell.log.contains("goodbye"))
    }

    @Test("L9: an app that names its state at connect is not followed: started with & and saying foreground, it is")
    func namedStateWins() async throws {
        let (daemon, shell) = try Self.exampleAppInBackground(["--state", "foreground"])
        defer { shell.stop() }
        #expect(shell.waitFor("connected to \(daemon.socketPath) as com.example.maps"), "\(shell.log)")
        #expect(try appEntry(daemon, "com.example.maps")?["state"] == .string("foreground"))
        shell.closeInput()
        #expect(shell.waitFor { $0["exit"] != nil }?["exit"] == .int(0), "\(shell.log)")
    }

    @Test("U5: liveUpdates(accuracy: .reduced) gets the grid cell under a precise grant, without accuracyLimited")
    func voluntaryReducedAccuracy() async throws {
        let daemon = try DaemonProcess(
            settings: DaemonProcess.fastLifecycle
                + "\n[provider]\nkind = \"static\"\nlatitude = 35.681236\nlongitude = 139.767125\n"
        )
        try daemon.start()
        try daemon.connect().call(
            "io.locd.Admin.SetAuthorization",
            ["appId": .string("com.ex.maps"), "setting": .string("whileUsing"), "precise": .bool(true)]
        )
        let client = try await LocationClient.connect(appID: "com.ex.maps", socketPath: daemon.socketPath)
        let reduced = Inbox<LocationUpdate>.collecting(client.liveUpdates(accuracy: .reduced))
        let precise = Inbox<LocationUpdate>.collecting(client.liveUpdates(.default, accuracy: .full))
        let cell = try await reduced.first { $0.location != nil }
        #expect(cell.location?.horizontalAccuracy == 5000)
        #expect(abs((cell.location?.latitude ?? 0) - 35.685) < 1e-9, "the centre of the Tokyo Station cell")
        #expect(!cell.accuracyLimited, "the app chose it: no flag")
        let exact = try await precise.first { $0.location != nil }
        #expect(exact.location?.latitude == 35.681236)
        #expect(try await client.authorization.accuracy == .fullAccuracy)

        // On the wire: an accuracy that is not one of the two is refused, naming the parameter.
        let app = try daemon.app("com.ex.maps")
        let refused = errorName {
            _ = try app.stream("io.locd.App.LiveUpdates", ["accuracy": .string("coarse")])
        }
        #expect(refused == "org.varlink.service.InvalidParameter")
        try await client.goodbye()
    }
}

// MARK: Helpers

/// What a background `for try await` loop received, and how it ended.
/// A `systemctl restart` (SIGTERM, then a fresh start) under a thousand live sessions and their streams.
@Suite("Restart continuity", .serialized)
struct RestartContinuityTests {
    static let apps = (0..<10).map { "com.restart.app\($0)" }
    static let graceApp = "com.restart.grace"
    static let promptApp = "com.restart.prompt"
    static let grace = 5.0
    static let promptTimeout = 5.0

    static let manifests = DaemonProcess.manifests(apps + [graceApp, promptApp], whenInUse: "Restart test")

    /// Windows long enough for a loaded machine to resume a thousand sessions one call at a time.
    static let settings =
        DaemonProcess.lifecycle(
            backgroundGrace: grace,
            relaunchWindow: 60,
            relaunchAdopt: 60,
            promptTimeout: promptTimeout
        ) + "\n[limits]\nmax-sessions-per-app = 128"

    /// The grace app's stored `grace_ends` (CLOCK_BOOTTIME nanoseconds).
    private func storedGrace(_ daemon: DaemonProcess) throws -> Int64? {
        Int64(try daemon.storedValue("SELECT grace_ends FROM apps WHERE app_id = ?", [Self.graceApp]))
    }

    @Test("R2, R3: SIGTERM and start with 1,000 sessions: none invalidated, every client resumed, deadlines kept")
    func thousandSessions() async throws {
        let daemon = try DaemonProcess(manifests: Self.manifests, settings: Self.settings)
        try daemon.start()
        let admin = try daemon.connect()
        for app in Self.apps + [Self.graceApp] {
            try admin.call("io.locd.Admin.SetAuthorization", ["appId": .string(app), "setting": .string("whileUsing")])
        }
        let watcher = try daemon.connect()
        try watcher.send(VarlinkCall(method: "io.locd.Admin.Watch", parameters: [:], more: true))

        // Ten apps with a hundred sessions each, and each app's diagnostics and live-updates loops running.
        var clients: [LocationClient] = []
        var ids: Set<String> = []
        var diagnostics: [Inbox<ServiceSession.Diagnostic>] = []
        var updates: [Inbox<LocationUpdate>] = []
        for app in Self.apps {
            let client = try await LocationClient.connect(
                appID: app,
                socketPath: daemon.socketPath,
                reconnection: ClientLibraryTests.quickReconnection
            )
            for index in 0..<100 {
                let session = try await client.serviceSession(authorization: .whenInUse)
                ids.insert(session.id)
                if index == 0 { diagnostics.append(Inbox.collecting(session.diagnostics)) }
            }
            updates.append(Inbox.collecting(client.liveUpdates()))
            clients.append(client)
        }
        for inbox in diagnostics { #expect(try await inbox.element(0).flags.isEmpty) }
        #expect(ids.count == 1000)

        // A background grace and a prompt timeout running across the restart (R2).
        let graceClient = try await LocationClient.connect(
            appID: Self.graceApp,
            socketPath: daemon.socketPath,
            reconnection: ClientLibraryTests.quickReconnection
        )
        let graceSession = try await graceClient.serviceSession(authorization: .whenInUse)
        try await graceClient.setAppState(.background)
        let promptClient = try await LocationClient.connect(
            appID: Self.promptApp,
            socketPath: daemon.socketPath,
            reconnection: ClientLibraryTests.quickReconnection
        )
        _ = try await promptClient.serviceSession(authorization: .whenInUse)
        let backgrounded = try watcher.next {
            $0["event"]?["kind"] == .string("appStateChanged") && $0["event"]?["appId"] == .string(Self.graceApp)
        }
        let raised = try watcher.next {
            $0["event"]?["kind"] == .string("promptRaised") && $0["event"]?["appId"] == .string(Self.promptApp)
        }
        let graceEnds = try #require(backgrounded["event"]?["timestamp"]?.doubleValue) + Self.grace
        let promptEnds = try #require(raised["event"]?["timestamp"]?.doubleValue) + Self.promptTimeout

        let graceStored = try storedGrace(daemon)
        #expect(graceStored != nil)
        let stoppedAt = Date()
        #expect(daemon.stop() == 0)
        try daemon.start()
        let restartTook = Date().timeIntervalSince(stoppedAt)
        // The grace deadline in the store is the very instant set before the restart (R2), the app's Hello
        // after it notwithstanding.
        let graceRestored = try storedGrace(daemon)
        #expect(graceRestored == graceStored, "the restart moved the stored grace deadline")
        #expect(restartTook < Self.grace - 1, "the restart took \(restartTook) s, too long to test the deadlines")
        let after = try daemon.connect()
        try after.send(VarlinkCall(method: "io.locd.Admin.Watch", parameters: [:], more: true))

        // Every client comes back and takes its sessions back: all 1,000 active again, under the same ids.
        let allBack = try await eventually(timeout: 60, every: 0.02) {
            let listed = try daemon.connect().call("io.locd.Admin.ListSessions")["sessions"]?.arrayValue ?? []
            let active = Set(
                listed.filter { $0["state"] == .string("active") }.compactMap { $0["id"]?.stringValue }
            )
            return ids.isSubset(of: active)
        }
        #expect(allBack, "not every session was resumed and active")

        // The grace runs out at its instant: not before it, and after it only by the timer's wake-up. The
        // prompt timeout's event carries its deadline's own instant (L6): within 50 ms of the one set before.
        var graceSeen: Double?
        var promptSeen: Double?
        while graceSeen == nil || promptSeen == nil {
            let event = try after.next()["event"]
            let detail = event?["detail"]?.stringValue ?? ""
            if event?["kind"] == .string("sessionChanged"), event?["sessionId"] == .string(graceSession.id),
                detail.contains("insufficientlyInUse")
            {
                graceSeen = event?["timestamp"]?.doubleValue
            }
            if event?["kind"] == .string("promptResolved"), event?["appId"] == .string(Self.promptApp) {
                promptSeen = event?["timestamp"]?.doubleValue
            }
        }
        #expect(graceSeen! >= graceEnds - 0.05, "the grace ended \(graceEnds - graceSeen!) s early")
        #expect(graceSeen! <= graceEnds + 2, "the grace ended \(graceSeen! - graceEnds) s late")
        #expect(abs(promptSeen! - promptEnds) <= 0.05, "the prompt timed out \(promptSeen! - promptEnds) s off")

        // No loop saw an end or an error: the restart was invisible to the apps.
        for inbox in diagnostics { #expect(await inbox.outcome == nil) }
        for inbox in updates { #expect(await inbox.outcome == nil) }
        for client in clients + [graceClient, promptClient] { await client.close() }
        #expect(daemon.stop() == 0)
    }
}

actor Inbox<Element: Sendable> {
    enum Outcome: Equatable {
        case finished
        case failed(String)
    }

    private(set) var elements: [Element] = []
    private(set) var outcome: Outcome?
    private var task: Task<Void, Never>?

    /// Iterates `sequence` in a task of its own, recording each element and the end.
    static func collecting<S: AsyncSequence & Sendable>(_ sequence: S) -> Inbox where S.Element == Element {
        let inbox = Inbox()
        let task = Task {
            do {
                for try await element in sequence { await inbox.record(element) }
                await inbox.finish(.finished)
            } catch let error as LocationClientError {
                await inbox.finish(.failed(error.varlinkName ?? "\(error)"))
            } catch {
                await inbox.finish(.failed("\(error)"))
            }
        }
        Task { await inbox.hold(task) }
        return inbox
    }

    private func record(_ element: Element) { elements.append(element) }
    private func finish(_ outcome: Outcome) { self.outcome = outcome }
    private func hold(_ task: Task<Void, Never>) { self.task = task }

    /// Cancels the iterating task.
    nonisolated func cancel() {
        Task { await self.cancelTask() }
    }

    private func cancelTask() {
        task?.cancel()
    }

    /// The element at `index`, once received.
    func element(_ index: Int, timeout: Double = 20) async throws -> Element {
        try await wait(timeout: timeout, for: "element \(index)") { elements.count > index }
        return elements[index]
    }

    /// The first element satisfying `condition`, once received.
    func first(timeout: Double = 20, where condition: (Element) -> Bool) async throws -> Element {
        try await wait(timeout: timeout, for: "a matching element") { elements.contains(where: condition) }
        return elements.first(where: condition)!
    }

    /// How the loop ended, once it has.
    func end(timeout: Double = 20) async throws -> Outcome {
        try await wait(timeout: timeout, for: "the end") { outcome != nil }
        return outcome!
    }

    private func wait(timeout: Double, for what: String, until condition: () -> Bool) async throws {
        // Polling with a deadline: the loop records into this actor between polls.
        guard try await eventually(timeout: timeout, condition) else {
            throw InboxTimeout(what: what, elements: elements.count, outcome: outcome.map { "\($0)" })
        }
    }
}

private struct InboxTimeout: Error, CustomStringConvertible {
    var what: String
    var elements: Int
    /// How the loop ended, if it did: a stream that failed says why no more elements came.
    var outcome: String?
    var description: String {
        let ended = outcome.map { "; the loop ended: \($0)" } ?? ""
        return "waited in vain for \(what) (\(elements) elements received\(ended))"
    }
}

/// Everything a child process writes to a pipe, read as it comes.
///
/// `@unchecked Sendable`: `lock` guards `data`, which the pipe's reader thread appends to.
private final class CollectedOutput: @unchecked Sendable {
    private let handle: FileHandle
    private let lock = NSLock()
    private var data = Data()

    init(_ handle: FileHandle) {
        self.handle = handle
        handle.readabilityHandler = { [weak self] handle in
            let chunk = handle.availableData
            guard let self else { return }
            lock.withLock { data.append(chunk) }
        }
    }

    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }

    /// Stops reading and returns everything, including what was still in the pipe.
    func finish() -> String {
        handle.readabilityHandler = nil
        let rest = handle.readDataToEndOfFile()
        return lock.withLock {
            data.append(rest)
            return String(decoding: data, as: UTF8.self)
        }
    }
}

/// The app's entry in `Admin.ListApps`.
private func appEntry(_ daemon: DaemonProcess, _ appID: String) throws -> JSONValue? {
    // This test's own user's app (SEMANTICS H1), not the installed entry of no user listed beside it.
    let apps = try daemon.connect().call("io.locd.Admin.ListApps")["apps"]?.arrayValue ?? []
    return apps.first { $0["appId"] == .string(appID) && $0["user"] == .int(Int64(getuid())) }
}

/// The app's sessions in `Admin.ListSessions`.
private func sessions(_ daemon: DaemonProcess, _ appID: String) throws -> [JSONValue] {
    try daemon.connect().call("io.locd.Admin.ListSessions", ["appId": .string(appID)])["sessions"]?.arrayValue ?? []
}
