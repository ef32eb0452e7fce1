import LocationTestSupport
import Testing

@testable import LocationCore

/// SEMANTICS §2, the core's side: what a reload (M2) and an app with no manifest (M3) do to sessions,
/// `Hello` and later requests. Parsing and validation of the TOML belong to the shell.
@Suite("Manifest rules")
struct ManifestRuleTests {
    // MARK: M2 — reload

    @Test("M2: a reload keeps every session, live and lingering, with its id, requirement, state and deadline")
    func reloadKeepsSessions() {
        var h = Harness()
        h.set("com.ex.run", .whileUsing)
        let maps = h.launch("com.ex.maps")
        let live = h.create(maps, .whenInUse)!
        h.answer("com.ex.maps", .allowWhileUsing)
        let runner = h.launch("com.ex.run")
        _ = h.launch("com.ex.run")  // a second process keeps the app running
        let lingering = h.create(runner, .whenInUse)!
        h.disconnect(runner)
        let diagnostics = h.call(maps, .sessionDiagnostics(live.description))
        let before = [h.session(live)!, h.session(lingering)!]
        #expect(before.map(\.state) == [.active, .lingering])

        h.send(.reload(manifests: Harness.defaultManifests, configuration: CoreConfiguration()))

        #expect(h.core.sessionIDs == [live, lingering])
        #expect([h.session(live)!, h.session(lingering)!] == before)
        #expect(!h.ended(diagnostics))
        #expect(h.messages(to: diagnostics).isEmpty, "an unchanged mask is not sent again (D11)")
        #expect(!h.persisted.contains { if case .sessionRemoved = $0 { true } else { false } })
    }

    @Test("M2: a session whose manifest lost the Always description stays; the next always request fails per S2")
    func removedAlwaysDescription() {
        var h = Harness()
        let maps = h.launch("com.ex.maps")
        let always = h.create(maps, .always)!
        h.answer("com.ex.maps", .allowWhileUsing)  // P1: provisional Always
        #expect(h.state(always) == .active)

        var manifests = Harness.defaultManifests
        manifests[0].alwaysAndWhenInUseUsageDescription = nil
        h.send(.reload(manifests: manifests, configuration: CoreConfiguration()))

        // The session is not touched: same requirement, still active, still counted.
        #expect(h.session(always)?.requirement == .always)
        #expect(h.state(always) == .active)
        #expect(h.mask(always) == [])

        let missing = LocationError.usageDescriptionMissing(
            key: Manifest.alwaysKey,
            manifest: "apps.d/com.ex.maps.toml"
        )
        let create = h.call(maps, .createSession(.always, purposeKey: nil))
        #expect(h.error(of: create) == missing)
        let request = h.call(maps, .requestAuthorization(.always))
        #expect(h.error(of: request) == missing)
        #expect(h.core.sessionIDs == [always], "nothing was created")
        // What the new manifest still allows goes on working.
        #expect(h.create(maps, .whenInUse) != nil)
    }

    @Test("M2: after a reload removes the WhenInUse description, a new session or stream fails; the old ones stay")
    func removedWhenInUseDescription() {
        var h = Harness()
        let maps = h.launch("com.ex.maps")
        let session = h.create(maps, .whenInUse)!
        h.answer("com.ex.maps", .allowWhileUsing)
        let updates = h.call(maps, .liveUpdates(.standard))

        var manifests = Harness.defaultManifests
        manifests[0].whenInUseUsageDescription = nil
        h.send(.reload(manifests: manifests, configuration: CoreConfiguration()))

        let missing = LocationError.usageDescriptionMissing(
            key: Manifest.whenInUseKey,
            manifest: "apps.d/com.ex.maps.toml"
        )
        let create = h.call(maps, .createSession(.whenInUse, purposeKey: nil))
        #expect(h.error(of: create) == missing)
        let stream = h.call(maps, .liveUpdates(.standard))
        #expect(h.error(of: stream) == missing)
        #expect(h.core.sessionIDs == [session])
        #expect(h.state(session) == .active)
        #expect(!h.ended(updates))
    }

    @Test("M2: a session of an app whose manifest was removed stays; its next request fails per S2")
    func removedManifest() {
        var h = Harness()
        let maps = h.launch("com.ex.maps")
        let session = h.create(maps, .whenInUse)!
        h.answer("com.ex.maps", .allowWhileUsing)

        let manifests = Harness.defaultManifests.filter { $0.appID != "com.ex.maps" }
        h.send(.reload(manifests: manifests, configuration: CoreConfiguration()))

        #expect(h.core.sessionIDs == [session])
        #expect(h.state(session) == .active)
        // An app with no manifest declares no usage description (and may not be admitted as unknown).
        let create = h.call(maps, .createSession(.whenInUse, purposeKey: nil))
        #expect(
            h.error(of: create)
                == .usageDescriptionMissing(key: Manifest.whenInUseKey, manifest: "apps.d/com.ex.maps.toml")
        )
        #expect(h.core.sessionIDs == [session])
        // A new process of the app cannot say Hello any more (M3).
        let newcomer = h.connect()
        let hello = h.call(newcomer, .hello(appID: "com.ex.maps", state: nil))
        #expect(h.error(of: hello) == .appUnknown(appID: "com.ex.maps"))
    }

    @Test("M2: a manifest added by a reload lets its app say Hello")
    func addedManifest() {
        var h = Harness()
        let early = h.connect()
        let refused = h.call(early, .hello(appID: "com.ex.new", state: nil))
        #expect(h.error(of: refused) == .appUnknown(appID: "com.ex.new"))

        let added = Manifest(appID: "com.ex.new", whenInUseUsageDescription: "New features near you")
        h.send(.reload(manifests: Harness.defaultManifests + [added], configuration: CoreConfiguration()))

        let client = h.connect()
        let hello = h.call(client, .hello(appID: "com.ex.new", state: nil))
        let notDetermined = AuthorizationView(AuthorizationRecord())
        #expect(h.reply(to: hello) == .hello(authorization: notDetermined, lingeringSessions: []))
        #expect(h.create(client, .whenInUse) != nil)
        #expect(h.prompts("com.ex.new").map(\.usageDescription) == ["New features near you"])
    }

    // MARK: M3 — apps with no manifest

    @Test("M3: an app with no manifest cannot say Hello (AppUnknown) and its connection stays unbound")
    func unknownAppRefused() {
        #expect(CoreConfiguration().allowUnknownApps == false, "allow-unknown-apps defaults to false")
        var h = Harness()
        let client = h.connect()
        let hello = h.call(client, .hello(appID: "com.ex.ghost", state: nil))
        #expect(h.error(of: hello) == .appUnknown(appID: "com.ex.ghost"))
        let create = h.call(client, .createSession(.whenInUse, purposeKey: nil))
        #expect(h.error(of: create) == .helloRequired)
        #expect(h.appState("com.ex.ghost") == nil)
        let admin = h.connect()
        let list = h.call(admin, .listApps(user: nil))
        guard case .apps(let apps)? = h.reply(to: list) else {
            Issue.record("ListApps did not reply")
            return
        }
        #expect(!apps.map(\.appID).contains("com.ex.ghost"))
    }

    @Test("M3: with allow-unknown-apps an unknown app gets \"(no description)\" descriptions and identity any")
    func unknownAppAdmitted() {
        var h = Harness(configuration: CoreConfiguration(allowUnknownApps: true))
        let client = h.connect()
        let hello = h.call(client, .hello(appID: "com.ex.ghost", state: nil))
        let notDetermined = AuthorizationView(AuthorizationRecord())
        #expect(h.reply(to: hello) == .hello(authorization: notDetermined, lingeringSessions: []))
        #expect(h.appState("com.ex.ghost") == .foreground)

        let manifest = h.core.apps["com.ex.ghost"]?.manifest
        #expect(manifest?.whenInUseUsageDescription == "(no description)")
        #expect(manifest?.alwaysAndWhenInUseUsageDescription == "(no description)")
        #expect(manifest?.identity == .any)
        #expect(manifest?.temporaryUsageDescriptions == [:])
        #expect(manifest?.backgroundLocation == false)
    }

    @Test("M3: an unknown app admitted by allow-unknown-apps asks for Always and works like any other")
    func unknownAppWorks() {
        var h = Harness(configuration: CoreConfiguration(allowUnknownApps: true))
        let client = h.launch("com.ex.ghost")
        let session = h.create(client, .always)!
        #expect(h.prompts("com.ex.ghost").map(\.kind) == [.authorization])
        #expect(h.prompts("com.ex.ghost").map(\.usageDescription) == ["(no description)"])
        #expect(h.mask(session) == [.authorizationRequestInProgress])

        h.answer("com.ex.ghost", .allowWhileUsing)

        #expect(h.status("com.ex.ghost") == .authorizedAlways)
        #expect(h.authorization("com.ex.ghost").provisional)
        #expect(h.state(session) == .active)
        let admin = h.connect()
        let list = h.call(admin, .listApps(user: nil))
        guard case .apps(let apps)? = h.reply(to: list) else {
            Issue.record("ListApps did not reply")
            return
        }
        let entry = apps.first { $0.appID == "com.ex.ghost" }
        #expect(entry?.manifest == "(allow-unknown-apps)")
        #expect(entry?.authorization.settingsLabel == .whileUsing)
    }

    @Test("M3: a reload that turns allow-unknown-apps off refuses the unknown app's next Hello; its session stays")
    func unknownAppsTurnedOff() {
        var h = Harness(configuration: CoreConfiguration(allowUnknownApps: true))
        let client = h.launch("com.ex.ghost")
        let session = h.create(client, .noAuthorization)!

        // While the setting stays on, a reload keeps the admitted app as it is.
        h.send(.reload(manifests: Harness.defaultManifests, configuration: CoreConfiguration(allowUnknownApps: true)))
        let second = h.connect()
        let admitted = h.call(second, .hello(appID: "com.ex.ghost", state: nil))
        #expect(h.error(of: admitted) == nil)
        #expect(h.core.apps["com.ex.ghost"]?.manifest?.source == "(allow-unknown-apps)")

        h.send(.reload(manifests: Harness.defaultManifests, configuration: CoreConfiguration()))
        let third = h.connect()
        let refused = h.call(third, .hello(appID: "com.ex.ghost", state: nil))
        #expect(h.error(of: refused) == .appUnknown(appID: "com.ex.ghost"))
        #expect(h.core.sessionIDs == [session])
        #expect(h.state(session) == .active)
    }
}
