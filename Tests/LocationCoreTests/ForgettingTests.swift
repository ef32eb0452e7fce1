import LocationTestSupport
import Testing

@testable import LocationCore

/// SEMANTICS F18 in the core: an app with no manifest of its own is forgotten once it has nothing left to keep, so
/// that app ids a broker's processes invent cost nothing once their processes are gone.
@Suite("Forgetting apps")
struct ForgettingTests {
    private func brokered(_ appID: String, process: Int32) -> Call {
        .brokeredHello(appID: appID, state: nil, process: process, description: "Invented", uid: nil)
    }

    /// Every app id in the table.
    private func appIDs(_ h: Harness) -> [String] { h.core.apps.values.map(\.appID) }

    @Test("F18: a brokered app with nothing left is forgotten when its relaunch window closes, and starts anew")
    func forgottenAfterRelaunchWindow() {
        var h = Harness()
        let broker = h.connect(pid: 50)
        h.call(broker, brokered("org.invented.A", process: 4000))
        let session = h.create(broker, .whenInUse)
        #expect(session != nil)
        #expect(h.prompts("org.invented.A").count == 1)
        h.disconnect(broker)
        // Terminated, its session lingering: it has something to keep until the window closes (L3).
        #expect(appIDs(h).contains("org.invented.A"))
        h.advance(10)
        #expect(!appIDs(h).contains("org.invented.A"))
        #expect(h.persisted.contains(.appRemoved(AppKey.noUser("org.invented.A"))))
        let listed = h.call(h.connect(), .listApps(user: nil))
        guard case .apps(let views)? = h.reply(to: listed) else {
            Issue.record("ListApps failed")
            return
        }
        #expect(!views.map(\.appID).contains("org.invented.A"))
        // The next Hello makes it again, as new: it asks again.
        let again = h.connect(pid: 51)
        // The call first, then its error: in one expression `h` would be read before the call's actions existed.
        let hello = h.call(again, brokered("org.invented.A", process: 4001))
        #expect(h.error(of: hello) == nil)
        #expect(h.status("org.invented.A") == .notDetermined)
        #expect(h.create(again, .whenInUse) != nil)
        #expect(h.prompts("org.invented.A").count == 1)
    }

    @Test("F18: a flood of invented app ids, each done in turn, leaves the app and session tables as they were")
    func floodOfInventedIDs() {
        var h = Harness()
        let before = appIDs(h)
        for index in 0..<5000 {
            let broker = h.connect(pid: 50)
            h.call(broker, brokered("org.invented.app\(index)", process: Int32(4000 + index % 1000)))
            #expect(h.create(broker, .whenInUse) != nil)
            h.call(broker, .goodbye)
            h.disconnect(broker)
        }
        #expect(appIDs(h) == before)
        // One handle and one run of session slots served them all, given again to each next app.
        #expect(h.core.apps.runtimes.count == before.count + 1)
        #expect(h.core.sessions.slots.count <= SessionTable.chunk)
        #expect(h.core.prompts.isEmpty)
    }

    @Test("F18: an app keeps its place while it has a process, a session, a decision, or a manifest of its own")
    func keptWhileItHasSomething() {
        var h = Harness()
        // A decision is the person's answer: kept, though the app is gone.
        let decided = h.connect(pid: 50)
        h.call(decided, brokered("org.invented.Decided", process: 4000))
        #expect(h.create(decided, .whenInUse) != nil)
        #expect(h.answer("org.invented.Decided", .deny) == nil)
        h.call(decided, .goodbye)
        // A process still connected.
        let running = h.connect(pid: 51)
        h.call(running, brokered("org.invented.Running", process: 4001))
        // A manifest of its own: never forgotten.
        let maps = h.launch("com.ex.maps")
        h.call(maps, .goodbye)
        h.advance(60)
        #expect(appIDs(h).contains("org.invented.Decided"))
        #expect(h.status("org.invented.Decided") == .denied)
        #expect(appIDs(h).contains("org.invented.Running"))
        #expect(appIDs(h).contains("com.ex.maps"))
        // Its process gone and its window closed, the running one goes too.
        h.disconnect(running)
        h.advance(10)
        #expect(!appIDs(h).contains("org.invented.Running"))
    }

    @Test("F18: a one-time grant that ended with the app's use leaves nothing to keep (L5)")
    func oneTimeGrantEnds() {
        var h = Harness()
        let broker = h.connect(pid: 50)
        h.call(broker, brokered("org.invented.Once", process: 4000))
        #expect(h.create(broker, .whenInUse) != nil)
        #expect(h.answer("org.invented.Once", .allowOnce) == nil)
        #expect(h.status("org.invented.Once") == .authorizedWhenInUse)
        h.call(broker, .goodbye)
        #expect(!appIDs(h).contains("org.invented.Once"))
    }

    @Test("F18, I2: a handle given again does not give the new app the forgotten app's ended session ids")
    func handleGivenAgainIsNoOracle() {
        var h = Harness()
        let first = h.connect(pid: 50)
        h.call(first, brokered("org.invented.First", process: 4000))
        let old = h.create(first, .whenInUse)!
        let handle = h.core.apps.handle(AppKey.noUser("org.invented.First"))
        h.call(first, .goodbye)
        #expect(h.core.apps.handle(AppKey.noUser("org.invented.First")) == nil)
        let second = h.connect(pid: 51)
        h.call(second, brokered("org.invented.Second", process: 4001))
        #expect(h.core.apps.handle(AppKey.noUser("org.invented.Second")) == handle)
        let resumed = h.call(second, .resumeSession(old.description))
        #expect(h.error(of: resumed) == .noSuchSession(id: old.description))
        // Its own ended session is still SessionInvalidated (S3).
        let own = h.create(second, .whenInUse)!
        h.call(second, .invalidateSession(own.description))
        let again = h.call(second, .resumeSession(own.description))
        #expect(h.error(of: again) == .sessionInvalidated(id: own.description))
    }

    @Test("F18: stored apps with nothing left to keep are forgotten, from the store too, at the first event")
    func forgottenAfterRestore() {
        var h = Harness()
        let stored = CoreSnapshot(
            records: [
                AppKey.noUser("org.invented.Stale"): AuthorizationRecord(),
                AppKey.noUser("org.invented.Denied"): AuthorizationRecord(status: .denied),
            ],
            apps: [
                AppSnapshot(
                    appID: "org.invented.Stale",
                    state: .notRunning,
                    graceEnds: nil,
                    relaunchEnds: nil,
                    inUseAtTermination: false,
                    user: nil
                )
            ]
        )
        h.core = LocationCore(
            configuration: h.core.configuration,
            manifests: Harness.defaultManifests,
            restoring: stored,
            epoch: 2,
            at: h.now
        )
        h.advance(0)
        #expect(h.persisted.contains(.appRemoved(AppKey.noUser("org.invented.Stale"))))
        #expect(!appIDs(h).contains("org.invented.Stale"))
        #expect(h.status("org.invented.Denied") == .denied)
    }
}
