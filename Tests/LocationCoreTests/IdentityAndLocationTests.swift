import LocationTestSupport
import Testing

@testable import LocationCore

/// I2 (no existence oracle across apps), and the parts of U1 and U3 the core decides on its own.
@Suite("Identity and location streams")
struct IdentityAndLocationTests {
    @Test("I2: another app's session id answers NoSuchSession for every call that names a session")
    func otherAppsSession() throws {
        var h = Harness()
        let maps = h.launch("com.ex.maps")
        let created = h.create(maps, .noAuthorization)

        let id = try #require(created)
        let run = h.launch("com.ex.run")
        let calls: [Call] = [
            .resumeSession(id.description), .invalidateSession(id.description), .sessionDiagnostics(id.description),
        ]
        for method in calls {
            let call = h.call(run, method)
            #expect(h.error(of: call) == .noSuchSession(id: id.description))
        }
        #expect(h.session(id)?.state == .active, "the session is untouched")
        let listed = h.call(run, .listSessions)
        #expect(h.reply(to: listed) == .sessions([]))
    }

    @Test("I2: an ended session of another app is NoSuchSession, not SessionInvalidated")
    func otherAppsEndedSession() throws {
        var h = Harness()
        let maps = h.launch("com.ex.maps")
        let created = h.create(maps, .noAuthorization)

        let id = try #require(created)
        h.call(maps, .invalidateSession(id.description))
        let run = h.launch("com.ex.run")
        let call = h.call(run, .resumeSession(id.description))
        #expect(h.error(of: call) == .noSuchSession(id: id.description))
        let own = h.call(maps, .resumeSession(id.description))
        #expect(h.error(of: own) == .sessionInvalidated(id: id.description))
    }

    @Test("U1: LiveUpdates sends one update at once, then one per change of its mask or delivered fix, never a repeat")
    func liveUpdatesStream() throws {
        var h = Harness()
        h.set("com.ex.maps", .whileUsing)
        let app = h.launch("com.ex.maps")
        let stream = h.call(app, .liveUpdates(.fitness))
        #expect(h.messages(to: stream) == [.update([.locationUnavailable])], "no fix yet")
        h.send(.fix(Harness.here))
        #expect(h.messages(to: stream) == [.update([], location: Harness.here)])
        h.send(.fix(Harness.here))
        #expect(h.messages(to: stream) == [], "the same state and a fix the filter holds back send nothing")
        h.call(app, .setAppState(.background))
        h.advance(10)
        #expect(h.messages(to: stream) == [.update([.insufficientlyInUse])])
    }

    @Test("U3: the provider runs while a session or stream needs it, lingering ones included, and stops after")
    func providerDemand() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        #expect(!h.core.isProviderRunning)
        let created = h.create(app, .whenInUse)

        let id = try #require(created)
        #expect(h.last.contains { if case .provider(running: true) = $0 { true } else { false } })
        h.disconnect(app)
        #expect(h.session(id)?.state == .lingering)
        #expect(h.core.isProviderRunning, "a lingering session keeps the provider warm (L3)")
        h.advance(10)
        #expect(h.session(id) == nil)
        #expect(h.last.contains { if case .provider(running: false) = $0 { true } else { false } })
        #expect(!h.core.isProviderRunning)
    }

    @Test("U3: a none session does not need the provider; a location stream does")
    func noneSessionNoProvider() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let created = h.create(app, .noAuthorization)

        _ = try #require(created)
        #expect(!h.core.isProviderRunning)
        let stream = h.call(app, .liveUpdates(.standard))
        #expect(h.core.isProviderRunning)
        h.disconnect(app)
        #expect(h.ended(stream) == false, "a closed connection's stream just goes")
        #expect(!h.core.isProviderRunning, "the implicit session ended with its stream; the none session lingers")
    }
}
