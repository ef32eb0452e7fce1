import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// SEMANTICS §15 through the real daemon, with two ordinary users (real uids through `setpriv`) and root.
@Suite("People", .serialized)
struct PeopleTests {
    /// Two uids no system account uses: ordinary users to the kernel and to locd.
    private static let alice: UInt32 = 61_001
    private static let bob: UInt32 = 61_002
    private static let asRoot = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    /// Connection numbers of a person: an app's process, its agent, and a settings screen.
    private static let app = 1
    private static let agent = 2
    private static let settings = 3

    private func hello(_ person: Person, _ appID: String) throws {
        let hello = try person.call(
            Self.app,
            "io.locd.App.Hello",
            ["appId": .string(appID), "state": .string("foreground")]
        )
        #expect(hello.error == nil, "uid \(person.uid) Hello: \(hello)")
    }

    /// The user's app of each id, as an administrator's `ListApps` shows it.
    private func appsOf(_ uid: UInt32, _ admin: VarlinkClient) throws -> [String: JSONValue] {
        let apps = try admin.call("io.locd.Admin.ListApps")["apps"]?.arrayValue ?? []
        var found: [String: JSONValue] = [:]
        for app in apps where app["user"] == .int(Int64(uid)) {
            if let id = app["appId"]?.stringValue { found[id] = app }
        }
        return found
    }

    @Test(
        "H1, H7: one user's answer decides for that user's app only; each agent is offered its own user's prompts",
        .enabled(if: asRoot, "running two users' processes needs root")
    )
    func answersStayWithTheirUser() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let alice = try Person(socket: daemon.socketPath, uid: Self.alice)
        let bob = try Person(socket: daemon.socketPath, uid: Self.bob)
        // Each user's agent first, then Alice's Maps asks.
        alice.send(Self.agent, "io.locd.Admin.Prompts", more: true)
        bob.send(Self.agent, "io.locd.Admin.Prompts", more: true)
        try hello(alice, "com.ex.maps")
        try alice.call(Self.app, "io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        let offered = try alice.next(on: Self.agent)
        let prompt = try #require(offered.parameters["prompt"])
        #expect(prompt["appId"] == .string("com.ex.maps") && prompt["user"] == .int(Int64(Self.alice)))
        let denied = try alice.call(
            Self.settings,
            "io.locd.Admin.AnswerPrompt",
            ["id": prompt["id"]!, "answer": .string("deny")]
        )
        #expect(denied.error == nil)
        // Bob's Maps asks Bob: the first thing his agent was ever sent is his own prompt, not Alice's.
        try hello(bob, "com.ex.maps")
        let session = try bob.call(Self.app, "io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        #expect(session.error == nil)
        let bobsPrompt = try #require(try bob.next(on: Self.agent).parameters["prompt"])
        #expect(bobsPrompt["user"] == .int(Int64(Self.bob)) && bobsPrompt["id"] != prompt["id"])
        // Bob cannot answer Alice's (already gone) nor anything of hers; he answers his own.
        let allowed = try bob.call(
            Self.settings,
            "io.locd.Admin.AnswerPrompt",
            ["id": bobsPrompt["id"]!, "answer": .string("allowWhileUsing")]
        )
        #expect(allowed.error == nil)
        let admin = try daemon.connect()
        #expect(try appsOf(Self.alice, admin)["com.ex.maps"]?["authorization"]?["status"] == .string("denied"))
        #expect(
            try appsOf(Self.bob, admin)["com.ex.maps"]?["authorization"]?["status"] == .string("authorizedWhenInUse")
        )
        let alicesOwn = try alice.call(Self.app, "io.locd.App.GetAuthorization")
        #expect(alicesOwn.parameters["authorization"]?["status"] == .string("denied"))
    }

    @Test(
        "H4: an ordinary user sees and changes only their own apps, in every reply; naming another user is refused",
        .enabled(if: asRoot, "running two users' processes needs root")
    )
    func ownAppsOnly() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let alice = try Person(socket: daemon.socketPath, uid: Self.alice)
        let bob = try Person(socket: daemon.socketPath, uid: Self.bob)
        bob.send(Self.agent, "io.locd.Admin.Watch", more: true)
        try hello(alice, "com.ex.maps")
        try alice.call(Self.app, "io.locd.App.CreateSession", ["authorization": .string("none")])
        try hello(bob, "com.ex.run")
        try bob.call(Self.app, "io.locd.App.CreateSession", ["authorization": .string("none")])
        // Nothing of Alice's in any of Bob's replies.
        let apps = try bob.call(Self.settings, "io.locd.Admin.ListApps")
        // His running app, and the installed apps he has not run, each as his at its defaults (H2): all his own.
        let listed = apps.parameters["apps"]?.arrayValue ?? []
        #expect(listed.allSatisfy { $0["user"] == .int(Int64(Self.bob)) }, "\(listed)")
        #expect(listed.first { $0["appId"] == .string("com.ex.run") }?["state"] == .string("foreground"))
        let sessions = try bob.call(Self.settings, "io.locd.Admin.ListSessions")
        #expect(
            sessions.parameters["sessions"]?.arrayValue?.allSatisfy { $0["appId"] == .string("com.ex.run") } == true
        )
        let named = try bob.call(Self.settings, "io.locd.Admin.ListSessions", ["user": .int(Int64(Self.alice))])
        #expect(named.error == "org.varlink.service.PermissionDenied")
        let status = try bob.call(Self.settings, "io.locd.Admin.Status").parameters["status"]
        #expect(status?["administrator"] == .bool(false))
        #expect(status?["provider"]?["lastLatitude"] == nil && status?["provider"]?["source"] == nil)
        // Bob changes his own app's setting without privilege; Alice's id reaches no app of his.
        let own = try bob.call(
            Self.settings,
            "io.locd.Admin.SetAuthorization",
            ["appId": .string("com.ex.run"), "setting": .string("never")]
        )
        #expect(own.parameters["authorization"]?["status"] == .string("denied"))
        let theirs = try bob.call(
            Self.settings,
            "io.locd.Admin.SetAuthorization",
            ["appId": .string("com.ex.maps"), "setting": .string("always"), "user": .int(Int64(Self.alice))]
        )
        #expect(theirs.error == "org.varlink.service.PermissionDenied")
        let forget = try bob.call(Self.settings, "io.locd.Admin.ForgetApps", ["owner": .int(Int64(Self.alice))])
        #expect(forget.error == "org.varlink.service.PermissionDenied")
        // His watch saw his own app's events and none of Alice's: every event up to his own change of setting.
        var events: [JSONValue] = []
        while events.last?["kind"] != .string("authorizationChanged") {
            events.append(try #require(try bob.next(on: Self.agent).parameters["event"]))
        }
        #expect(events.allSatisfy { $0["appId"] == nil || $0["appId"] == .string("com.ex.run") }, "\(events)")
        let admin = try daemon.connect()
        #expect(try appsOf(Self.alice, admin)["com.ex.maps"]?["authorization"]?["status"] == .string("notDetermined"))
        // Each refusal is audited as the shell's are (I6).
        #expect(daemon.stop() == 0)
        #expect(daemon.errorOutput.contains("refused io.locd.Admin.ForgetApps"))
        #expect(daemon.errorOutput.contains("refused io.locd.Admin.SetAuthorization"))
        #expect(daemon.errorOutput.contains("locd.uid=\(Self.bob)"))
    }

    @Test(
        "H5, H6: an administrator's setting for every user holds against a user; a user's own switch is theirs alone",
        .enabled(if: asRoot, "running two users' processes needs root")
    )
    func policyAndOwnSwitch() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let alice = try Person(socket: daemon.socketPath, uid: Self.alice)
        let bob = try Person(socket: daemon.socketPath, uid: Self.bob)
        try hello(alice, "com.ex.maps")
        let alicesSession = try alice.call(
            Self.app,
            "io.locd.App.CreateSession",
            ["authorization": .string("whenInUse")]
        )
        try hello(bob, "com.ex.maps")
        let bobsSession = try bob.call(Self.app, "io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        let admin = try daemon.connect()
        _ = try admin.call(
            "io.locd.Admin.SetAuthorization",
            ["appId": .string("com.ex.maps"), "setting": .string("never")]
        )
        #expect(try appsOf(Self.alice, admin)["com.ex.maps"]?["authorization"]?["status"] == .string("denied"))
        #expect(try appsOf(Self.bob, admin)["com.ex.maps"]?["policy"]?["setting"] == .string("never"))
        let loosen = try bob.call(
            Self.settings,
            "io.locd.Admin.SetAuthorization",
            ["appId": .string("com.ex.maps"), "setting": .string("whileUsing")]
        )
        #expect(loosen.error == "org.varlink.service.PermissionDenied")
        #expect(loosen.parameters["message"]?.stringValue?.contains("for every user") == true)
        _ = try admin.call(
            "io.locd.Admin.SetAuthorization",
            ["appId": .string("com.ex.maps"), "setting": .string("askNextTime")]
        )
        // Bob turns location off for himself: his session is denied globally; Alice's is not; the machine's is on.
        #expect(
            try bob.call(Self.settings, "io.locd.Admin.SetLocationServices", ["enabled": .bool(false)]).error == nil
        )
        func flags(_ person: Person, _ created: VarlinkReply) throws -> [JSONValue] {
            let id = try #require(created.parameters["session"]?["id"])
            let sessions = try person.call(Self.app, "io.locd.App.ListSessions").parameters["sessions"]
            let session = sessions?.arrayValue?.first { $0["id"] == id }
            return session?["diagnostic"]?["flags"]?.arrayValue ?? []
        }
        #expect(try flags(bob, bobsSession).contains(.string("authorizationDeniedGlobally")))
        #expect(try !flags(alice, alicesSession).contains(.string("authorizationDeniedGlobally")))
        #expect(try admin.call("io.locd.Admin.Status")["status"]?["locationServicesEnabled"] == .bool(true))
        // Kept across a restart.
        #expect(daemon.stop() == 0)
        try daemon.start()
        let status = try bob.call(4, "io.locd.Admin.Status").parameters["status"]
        #expect(status?["locationServicesEnabledForUser"] == .bool(false))
    }

    @Test(
        "H8: an ordinary user's agents and watchers are bounded; another user is not held by them",
        .enabled(if: asRoot, "running two users' processes needs root")
    )
    func agentsPerUser() throws {
        let daemon = try DaemonProcess(settings: DaemonProcess.fastLifecycle + "\n[limits]\nmax-agents-per-uid = 2")
        try daemon.start()
        let bob = try Person(socket: daemon.socketPath, uid: Self.bob)
        let alice = try Person(socket: daemon.socketPath, uid: Self.alice)
        // Bob's app asks, so that each agent he opens is sent the pending prompt: it is open once that arrives.
        try bob.call(4, "io.locd.App.Hello", ["appId": .string("com.ex.run"), "state": .string("foreground")])
        try bob.call(4, "io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        for agent in 1...2 {
            let opened = try bob.call(agent, "io.locd.Admin.Prompts", more: true)
            #expect(opened.parameters["prompt"]?["appId"] == .string("com.ex.run"))
        }
        let third = try bob.call(3, "io.locd.Admin.Watch", more: true)
        #expect(
            third.error == "io.locd.App.LimitExceeded" && third.parameters["limit"] == .string("max-agents-per-uid")
        )
        try hello(alice, "com.ex.maps")
        try alice.call(Self.app, "io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        let alicesAgent = try alice.call(Self.agent, "io.locd.Admin.Prompts", more: true)
        #expect(alicesAgent.error == nil && alicesAgent.parameters["prompt"]?["user"] == .int(Int64(Self.alice)))
    }

    @Test(
        "H3: a store from before decisions belonged to users widens no decision: each user is asked again",
        .enabled(if: asRoot, "running two users' processes needs root")
    )
    func migratedStore() throws {
        let daemon = try DaemonProcess()
        // A store as the previous version left it: Maps allowed Always by somebody, whose uid it never kept.
        try StoreBeforeOwners.write(alwaysFor: ["com.ex.maps"], in: daemon)
        try daemon.start()
        let alice = try Person(socket: daemon.socketPath, uid: Self.alice)
        try hello(alice, "com.ex.maps")
        let own = try alice.call(Self.app, "io.locd.App.GetAuthorization")
        #expect(own.parameters["authorization"]?["status"] == .string("notDetermined"))
        // The old answer is kept where an administrator sees it, on the app's entry of no user.
        let admin = try daemon.connect()
        let apps = try admin.call("io.locd.Admin.ListApps")["apps"]?.arrayValue ?? []
        let entry = apps.first { $0["appId"] == .string("com.ex.maps") && $0["user"] == nil }
        #expect(entry?["authorization"]?["status"] == .string("authorizedAlways"))
    }
}
