import LocationTestSupport
import Testing

@testable import LocationCore

/// SEMANTICS F20 and H8 in the core: every app belongs to its user (H1), one uid has at most `max-apps-per-uid` of
/// them, and an administrator forgets a user's.
@Suite("App owners")
struct AppOwnerTests {
    private static let nobody: UInt32 = 65534
    private static let alice: UInt32 = 1000
    private static let configuration = CoreConfiguration(maxAppsPerUID: 8, allowUnknownApps: true)

    /// A broker's Hello for process `process` of `uid`, as the shell hands it over once checked (I9).
    private func brokered(_ appID: String, process: Int32, uid: UInt32) -> Call {
        .brokeredHello(appID: appID, state: nil, process: process, description: "Invented", uid: uid)
    }

    /// The error of a call, `nil` when it succeeded. (In `h.error(of: h.call(…))` the base `h` is read before the
    /// call it is given runs, so the error of the call before would be read.)
    private func error(_ h: inout Harness, _ client: ClientID, _ method: Call) -> LocationError? {
        let call = h.call(client, method)
        return h.error(of: call)
    }

    /// The person's own agent answers each prompt (G11): every app is decided, which F18 keeps.
    /// - Returns: the error of each `Hello`, `nil` for one accepted.
    @discardableResult
    private func invent(_ h: inout Harness, _ prefix: String, count: Int, uid: UInt32) -> [LocationError?] {
        // The broker runs as its own user; the apps are the uid of the process it speaks for.
        (0..<count).map { index in
            let broker = h.connect(pid: 50, uid: 0)
            let appID = "\(prefix).\(index)"
            let error = error(&h, broker, brokered(appID, process: 4000 + Int32(index), uid: uid))
            if error == nil {
                #expect(h.create(broker, .whenInUse) != nil)
                #expect(h.answer(AppKey(appID, user: uid), .allowWhileUsing) == nil)
            }
            h.call(broker, .goodbye)
            h.disconnect(broker)
            return error
        }
    }

    private func listed(_ h: inout Harness) -> [AppView] {
        let call = h.call(h.connect(uid: 0), .listApps(user: nil))
        guard case .apps(let views)? = h.reply(to: call) else { return [] }
        return views
    }

    private func invented(_ h: inout Harness) -> [AppView] {
        listed(&h).filter { $0.appID.hasPrefix("org.invented.") }
    }

    @Test(
        "F20: decided apps past max-apps-per-uid are refused LimitExceeded; the table holds the bound, and another uid is unaffected"
    )
    func boundPerUID() {
        var h = Harness(configuration: Self.configuration)
        let errors = invent(&h, "org.invented.nobody", count: 20, uid: Self.nobody)
        #expect(errors.prefix(8).allSatisfy { $0 == nil })
        #expect(errors.dropFirst(8).allSatisfy { $0 == .limitExceeded(limit: "max-apps-per-uid", maximum: 8) })
        let held = invented(&h)
        #expect(held.count == 8)
        #expect(held.allSatisfy { $0.owner == .uid(Self.nobody) && $0.authorization.status == .authorizedWhenInUse })
        // A process that connects itself (M3) is held to the same count as one a broker speaks for.
        let own = h.connect(pid: 5001, uid: Self.nobody)
        let refused = h.call(own, .hello(appID: "org.invented.direct2", state: nil))
        #expect(h.error(of: refused) == .limitExceeded(limit: "max-apps-per-uid", maximum: 8))
        // Another user's apps are counted apart.
        let theirs = invent(&h, "org.invented.alice", count: 3, uid: Self.alice)
        #expect(theirs == [nil, nil, nil])
        // An app that exists is never refused: nobody's own app comes back.
        let back = h.connect(pid: 50, uid: 0)
        #expect(error(&h, back, brokered("org.invented.nobody.0", process: 4100, uid: Self.nobody)) == nil)
        // H8: an installed app is the user's too, and counts: the user is at the bound.
        let maps = h.connect(uid: Self.nobody)
        #expect(
            error(&h, maps, .hello(appID: "com.ex.maps", state: nil))
                == .limitExceeded(limit: "max-apps-per-uid", maximum: 8)
        )
        #expect(h.core.ownedApps[Self.nobody] == 8)
        // Another user may use it.
        let alicesMaps = h.connect(uid: Self.alice)
        #expect(error(&h, alicesMaps, .hello(appID: "com.ex.maps", state: nil)) == nil)
    }

    @Test("F20, F18: an app F18 forgets frees its place in its owner's count")
    func forgottenAppsFreeTheirPlace() {
        var h = Harness(configuration: CoreConfiguration(maxAppsPerUID: 1))
        for index in 0..<5 {
            let broker = h.connect(pid: 50, uid: 0)
            #expect(error(&h, broker, brokered("org.invented.\(index)", process: 4000, uid: Self.nobody)) == nil)
            #expect(h.create(broker, .whenInUse) != nil)
            // Undecided, it is forgotten when its process is done with it (F18), and its place is free again.
            h.call(broker, .goodbye)
            h.disconnect(broker)
        }
        #expect(h.core.ownedApps.isEmpty)
        #expect(h.written.contains(.appRemoved(AppKey("org.invented.4", user: Self.nobody))))
    }

    @Test(
        "F20: the administrator forgets a user's apps, running ones too, as if they had never been known; others stay"
    )
    func forgetByOwner() {
        var h = Harness(configuration: Self.configuration)
        invent(&h, "org.invented.nobody", count: 7, uid: Self.nobody)
        invent(&h, "org.invented.alice", count: 2, uid: Self.alice)
        // Nobody's eighth app is running: a session, a pending prompt shown to an agent, a live stream.
        let prompts = h.call(h.connect(uid: 0), .promptsOfEveryone)
        let running = h.connect(pid: 60, uid: 0)
        #expect(error(&h, running, brokered("org.invented.running", process: 6000, uid: Self.nobody)) == nil)
        let session = h.create(running, .whenInUse)!
        let live = h.call(running, .liveUpdates(.standard))
        let runningApp = AppKey("org.invented.running", user: Self.nobody)
        let prompt = h.prompts(runningApp).first!
        let forget = h.call(h.connect(uid: 0), .forgetApps(owner: .uid(Self.nobody)))
        #expect(h.reply(to: forget) == .forgotten(8))
        // Its prompt is withdrawn, its stream ends, its session and everything stored of it go.
        #expect(h.messages(to: prompts).contains(.withdrawn(prompt.id)))
        #expect(h.ended(live))
        #expect(h.persisted.contains(.sessionRemoved(AppKey("org.invented.running", user: Self.nobody), session)))
        #expect(h.persisted.contains(.appRemoved(AppKey("org.invented.running", user: Self.nobody))))
        #expect(h.core.apps[runningApp] == nil)
        #expect(h.core.ownedApps[Self.nobody] == nil)
        // Its connection speaks for no app now: Hello again, and the app is made anew, asking again.
        #expect(error(&h, running, .listSessions) == .helloRequired)
        #expect(error(&h, running, brokered("org.invented.running", process: 6000, uid: Self.nobody)) == nil)
        #expect(h.status(runningApp) == .notDetermined)
        let resumed = error(&h, running, .resumeSession(session.description))
        #expect(resumed == .noSuchSession(id: session.description))
        // Alice's apps, and the apps with manifests, were not touched.
        #expect(invented(&h).map(\.appID).filter { $0.hasPrefix("org.invented.alice") }.count == 2)
        #expect(listed(&h).contains { $0.appID == "com.ex.maps" })
    }

    @Test("F20: forgetting decided apps removes them from memory and the store, and frees the owner's room")
    func forgetFreesRoom() {
        var h = Harness(configuration: Self.configuration)
        invent(&h, "org.invented.nobody", count: 8, uid: Self.nobody)
        let forget = h.call(h.connect(uid: 0), .forgetApps(owner: .uid(Self.nobody)))
        #expect(h.reply(to: forget) == .forgotten(8))
        let removed = h.persisted.filter { if case .appRemoved = $0 { true } else { false } }
        #expect(removed.count == 8)
        #expect(invented(&h).isEmpty)
        #expect(h.core.snapshot.records.keys.allSatisfy { !$0.appID.hasPrefix("org.invented.") })
        #expect(invent(&h, "org.invented.again", count: 8, uid: Self.nobody).allSatisfy { $0 == nil })
    }

    @Test(
        "F20: a restored core keeps each app's owner and its count; an app stored without one is unknown, counted for no one"
    )
    func restoreKeepsOwners() {
        var h = Harness(configuration: Self.configuration)
        invent(&h, "org.invented.nobody", count: 8, uid: Self.nobody)
        var stored = h.core.snapshot
        #expect(stored.records.keys.filter { $0.user == Self.nobody }.count == 8)
        // An app stored by a version that kept no owners.
        stored.records[AppKey.noUser("org.invented.old")] = AuthorizationRecord(status: .denied)
        h.core = LocationCore(
            configuration: Self.configuration,
            manifests: Harness.defaultManifests,
            restoring: stored,
            epoch: 2,
            at: h.now
        )
        h.advance(0)
        let views = invented(&h)
        #expect(views.count == 9)
        #expect(views.first { $0.appID == "org.invented.old" }?.owner == .unknown)
        #expect(views.first { $0.appID == "org.invented.old" }?.manifest == Manifest.noneSource)
        #expect(views.filter { $0.owner == .uid(Self.nobody) }.count == 8)
        // Still at the bound after the restart.
        let refused = invent(&h, "org.invented.after", count: 1, uid: Self.nobody)
        #expect(refused == [.limitExceeded(limit: "max-apps-per-uid", maximum: 8)])
        // The unknown owner's apps are forgotten on their own.
        let forget = h.call(h.connect(uid: 0), .forgetApps(owner: .unknown))
        #expect(h.reply(to: forget) == .forgotten(1))
        #expect(h.persisted.contains(.appRemoved(AppKey.noUser("org.invented.old"))))
        #expect(invented(&h).count == 8)
    }

    @Test("H8, F20: an app a reload gives a manifest keeps its user and still counts against them, with the manifest")
    func manifestOfItsOwn() {
        var h = Harness(configuration: CoreConfiguration(maxAppsPerUID: 1))
        invent(&h, "org.invented", count: 1, uid: Self.nobody)
        #expect(h.core.ownedApps[Self.nobody] == 1)
        let installed = Manifest(appID: "org.invented.0", whenInUseUsageDescription: "Installed")
        h.send(
            .reload(
                manifests: Harness.defaultManifests + [installed],
                configuration: CoreConfiguration(maxAppsPerUID: 1)
            )
        )
        #expect(h.core.ownedApps[Self.nobody] == 1)
        let users = listed(&h).filter { $0.appID == "org.invented.0" && $0.user == Self.nobody }
        #expect(users.map(\.owner) == [.uid(Self.nobody)])
        #expect(h.core.apps[AppKey("org.invented.0", user: Self.nobody)]?.manifest == installed)
        #expect(
            invent(&h, "org.invented.next", count: 1, uid: Self.nobody) == [
                .limitExceeded(limit: "max-apps-per-uid", maximum: 1)
            ]
        )
    }
}
