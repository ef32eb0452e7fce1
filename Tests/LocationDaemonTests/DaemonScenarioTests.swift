import Foundation
import JSON
import LocationProtocol
import LocationTestSupport
import Testing
import Varlink

/// End to end, one scenario per SEMANTICS section: the real `locd` binary over its real socket.
@Suite("Daemon scenarios", .serialized)
struct DaemonScenarioTests {
    @Test("PROTOCOL: GetInfo names locd and GetInterfaceDescription serves the IDL verbatim")
    func interfaces() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try daemon.connect()
        let info = try client.call("org.varlink.service.GetInfo")
        #expect(info["vendor"] == .string("locd"))
        #expect(info["product"] == .string("locd"))
        let names = info["interfaces"]?.arrayValue?.compactMap(\.stringValue)
        #expect(names == ["org.varlink.service", "io.locd.App", "io.locd.Admin"])
        for (name, text) in LocationInterfaces.all {
            let reply = try client.call("org.varlink.service.GetInterfaceDescription", ["interface": .string(name)])
            #expect(reply["description"] == .string(text))
        }
        #expect(daemon.stop() == 0)
    }

    @Test("S6, P1, D11: a session prompts, the agent answers, the diagnostics stream clears")
    func promptAnswerDiagnostics() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let app = try daemon.app("com.ex.maps")
        let created = try app.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        #expect(created.flags == ["authorizationRequestInProgress"])
        let id = try #require(created.sessionID)

        let watcher = try daemon.app("com.ex.maps")
        let first = try watcher.stream("io.locd.App.SessionDiagnostics", ["id": .string(id)])
        #expect(first.flags == ["authorizationRequestInProgress"])
        #expect(first["ended"] == .bool(false))

        let agent = try daemon.connect()
        let prompt = try #require(try agent.stream("io.locd.Admin.Prompts")["prompt"])
        #expect(prompt["appId"] == .string("com.ex.maps"))
        #expect(prompt["usageDescription"] == .string("Shows you on the map"))
        #expect(prompt["options"] == .array([.string("allowWhileUsing"), .string("allowOnce"), .string("deny")]))

        let answerer = try daemon.connect()
        try answerer.call(
            "io.locd.Admin.AnswerPrompt",
            ["id": prompt["id"]!, "answer": .string("allowWhileUsing")]
        )
        let cleared = try watcher.next()
        #expect(cleared.flags == [])
        #expect(try agent.next()["withdrawn"] == prompt["id"])
        let authorization = try app.call("io.locd.App.GetAuthorization")["authorization"]
        #expect(authorization?["status"] == .string("authorizedWhenInUse"))
        #expect(authorization?["settingsLabel"] == .string("whileUsing"))
    }

    @Test("L2: after the background grace the session reports insufficientlyInUse")
    func backgroundGrace() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let session = try daemon.watchedSession()
        #expect(session.firstFlags == [])
        let (app, watcher) = (session.app, session.watcher)
        try app.call("io.locd.App.SetAppState", ["state": .string("background")])
        // The grace is 0.4 s in the test configuration: the next change is its end.
        #expect(try watcher.next().flags == ["insufficientlyInUse"])
        try app.call("io.locd.App.SetAppState", ["state": .string("foreground")])
        #expect(try watcher.next().flags == [])
    }

    @Test("L3, L4, S14: a client that closes leaves its session lingering; the relaunch resumes it")
    func terminationRelaunchResume() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let watch = try daemon.connect()
        try watch.send(VarlinkCall(method: "io.locd.Admin.Watch", more: true))
        var app: VarlinkClient? = try daemon.app("com.ex.maps")
        let id = try #require(try app!.call("io.locd.App.CreateSession", ["authorization": .string("none")]).sessionID)
        app = nil  // closes the connection without Goodbye
        _ = try watch.next { $0["event"]?["kind"] == .string("appStateChanged") }

        let relaunched = try daemon.connect()
        let hello = try relaunched.call("io.locd.App.Hello", ["appId": .string("com.ex.maps")])
        let lingering = hello["lingeringSessions"]?.arrayValue ?? []
        #expect(lingering.map { $0["id"] } == [.string(id)])
        #expect(lingering.first?["state"] == .string("lingering"))
        let remaining = try #require(lingering.first?["remainingSeconds"]?.doubleValue)
        #expect(remaining > 0 && remaining <= 2.0)

        let resumed = try relaunched.call("io.locd.App.ResumeSession", ["id": .string(id)])
        #expect(resumed["session"]?["state"] == .string("active"))
        #expect(resumed["session"]?["deadline"] == nil)
    }

    @Test("S11: an opted-out app's live updates carry serviceSessionRequired until it holds a session")
    func explicitOptOut() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try daemon.authorize("com.ex.explicit", "whileUsing")
        let streamer = try daemon.app("com.ex.explicit")
        let first = try streamer.stream("io.locd.App.LiveUpdates")
        #expect(first.flags.contains("serviceSessionRequired"))
        let app = try daemon.app("com.ex.explicit")
        try app.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        // Updates for the provider's fix may come first; the one after the session drops the bit.
        let next = try streamer.next { !$0.flags.contains("serviceSessionRequired") }
        #expect(next.flags == [], "authorized, in use, and the static provider has a fix")
        let sessions = try app.call("io.locd.App.ListSessions")["sessions"]?.arrayValue ?? []
        #expect(sessions.map { $0["kind"] } == [.string("explicit")], "no implicit session for an opted-out app")
    }

    @Test("A4, D1: turning location services off sets both denial bits on every stream at once")
    func globalSwitch() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let session = try daemon.watchedSession()
        #expect(session.firstFlags == [])
        let (admin, watcher) = (session.admin, session.watcher)
        try admin.call("io.locd.Admin.SetLocationServices", ["enabled": .bool(false)])
        #expect(try watcher.next().flags == ["authorizationDenied", "authorizationDeniedGlobally"])
        let status = try admin.call("io.locd.Admin.Status")["status"]
        #expect(status?["locationServicesEnabled"] == .bool(false))
    }

    @Test("A1: an app in restricted-apps reads restricted and its SetAuthorization changes nothing")
    func restricted() throws {
        let daemon = try DaemonProcess(
            settings: DaemonProcess.fastLifecycle.replacingOccurrences(
                of: "allow-unknown-apps = false",
                with: "restricted-apps = [\"com.ex.maps\"]"
            )
        )
        try daemon.start()
        let app = try daemon.app("com.ex.maps")
        #expect(try app.call("io.locd.App.GetAuthorization")["authorization"]?["status"] == .string("restricted"))
        let admin = try daemon.connect()
        let set = try admin.call(
            "io.locd.Admin.SetAuthorization",
            ["appId": .string("com.ex.maps"), "setting": .string("always")]
        )
        #expect(set["authorization"]?["settingsLabel"] == .string("restricted"))
        let created = try app.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        #expect(created.flags == ["authorizationRestricted"])
    }

    @Test("R1: a decision whose reply arrived survives kill -9")
    func durabilityAcrossCrash() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let admin = try daemon.authorize("com.ex.maps", "always")
        try admin.call("io.locd.Admin.SetLocationServices", ["enabled": .bool(false)])
        daemon.crash()
        try daemon.start()
        let after = try daemon.connect()
        let status = try after.call("io.locd.Admin.Status")["status"]
        #expect(status?["locationServicesEnabled"] == .bool(false))
        let apps = try after.call("io.locd.Admin.ListApps")["apps"]?.arrayValue ?? []
        let maps = apps.first { $0["appId"] == .string("com.ex.maps") }
        #expect(maps?["authorization"]?["status"] == .string("authorizedAlways"))
    }

    @Test("R3: after a restart the session lingers and the app takes it back with ResumeSession")
    func restartWithSessions() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try daemon.authorize("com.ex.maps", "whileUsing")
        let app = try daemon.app("com.ex.maps")
        let id = try #require(
            try app.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")]).sessionID
        )
        #expect(daemon.stop() == 0)
        try daemon.start()
        let back = try daemon.connect()
        let hello = try back.call("io.locd.App.Hello", ["appId": .string("com.ex.maps")])
        #expect(hello["lingeringSessions"]?.arrayValue?.map { $0["id"] } == [.string(id)])
        let resumed = try back.call("io.locd.App.ResumeSession", ["id": .string(id)])
        #expect(resumed["session"]?["state"] == .string("active"))
    }
}

/// U4 over the socket: AddCondition, then MonitorEvents reports the condition.
@Suite("Monitoring over the socket", .serialized)
struct MonitoringScenarioTests {
    @Test("U4: AddCondition and MonitorEvents: the condition is reported with the monitor-event flags")
    func monitor() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try daemon.authorize("com.ex.maps", "always")
        let app = try daemon.app("com.ex.maps")
        let condition: JSONValue = .object([
            "latitude": .double(35.68), "longitude": .double(139.76), "radius": .int(200),
        ])
        try app.call(
            "io.locd.App.AddCondition",
            ["monitor": .string("places"), "identifier": .string("home"), "condition": condition]
        )
        let streamer = try daemon.app("com.ex.maps")
        let first = try streamer.stream("io.locd.App.MonitorEvents", ["monitor": .string("places")])
        #expect(first["event"]?["identifier"] == .string(""), "first: the monitor's own diagnostics")
        let home = try streamer.next()
        #expect(home["event"]?["identifier"] == .string("home"))
        #expect(home["event"]?["state"] == .string("unknown"))
        #expect(home["event"]?["monitor"] == .string("places"))
        #expect(
            errorName {
                try app.call(
                    "io.locd.App.AddCondition",
                    ["monitor": .string("places"), "identifier": .string("x"), "condition": .string("here")]
                )
            } == "org.varlink.service.InvalidParameter"
        )
    }
}
