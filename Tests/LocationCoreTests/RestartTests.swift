import LocationTestSupport
import Testing

@testable import LocationCore

/// SEMANTICS L7 with R2/R3: a daemon restart, modelled as a new core restored from the old one's snapshot.
@Suite("Restart")
struct RestartTests {
    static let maps = "com.ex.maps"
    static let run = "com.ex.run"

    @Test("L7: a restart is not a termination: a running app keeps its state and in use")
    func restartKeepsRunningApp() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse)!
        h.advance(2)

        h.restart()
        #expect(h.appState(Self.maps) == .foreground)
        #expect(h.inUse(Self.maps))
        #expect(h.status(Self.maps) == .authorizedWhenInUse)
        #expect(h.state(id) == .lingering)  // R3: every connection closed
        #expect(h.session(id)?.deadline == h.now.adding(.seconds(10)))
    }

    @Test("L7: a restart neither extends nor shortens the background grace (R2)")
    func restartKeepsGrace() {
        var h = Harness()
        let app = h.launch(Self.maps)
        h.call(app, .setAppState(.background))
        let graceEnds = h.now.adding(.seconds(10))
        h.advance(4)

        h.restart()
        #expect(h.appState(Self.maps) == .background)
        #expect(h.inUse(Self.maps))
        #expect(h.core.apps[Self.maps]!.graceEnds == graceEnds)
        h.advance(5.9)
        #expect(h.inUse(Self.maps))
        h.advance(0.1)
        #expect(!h.inUse(Self.maps))
        #expect(h.appState(Self.maps) == .background)
    }

    @Test("L7: a Hello inside the fresh window leaves a foreground app's state unchanged")
    func helloAfterRestartKeepsForeground() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse)!
        h.restart()

        let back = h.connect()
        let hello = h.call(back, .hello(appID: Self.maps, state: .background))
        guard case .hello(_, let lingering)? = h.reply(to: hello) else {
            Issue.record("Hello failed: \(h.last)")
            return
        }
        #expect(lingering.map(\.id) == [id])
        #expect(h.appState(Self.maps) == .foreground)
        #expect(h.inUse(Self.maps))
        #expect(h.core.apps[Self.maps]!.graceEnds == nil)
    }

    @Test("L7: a Hello inside the fresh window does not bring a background app forward")
    func helloAfterRestartKeepsBackground() {
        var h = Harness()
        let app = h.launch(Self.maps)
        h.call(app, .setAppState(.background))
        h.advance(20)
        #expect(!h.inUse(Self.maps))
        h.restart()

        _ = h.launch(Self.maps)
        #expect(h.appState(Self.maps) == .background)
        #expect(!h.inUse(Self.maps))
    }

    @Test("L7: an app no client returns to becomes notRunning when the fresh window closes, and Allow Once ends")
    func unclaimedAppStops() {
        var h = Harness()
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse)!
        h.answer(Self.maps, .allowOnce)
        h.advance(1)

        h.restart()
        h.advance(9.9)
        #expect(h.appState(Self.maps) == .foreground)
        #expect(h.authorization(Self.maps).oneTime)
        h.advance(0.1)
        #expect(h.appState(Self.maps) == .notRunning)
        #expect(!h.inUse(Self.maps))
        #expect(h.status(Self.maps) == .notDetermined)
        #expect(!h.authorization(Self.maps).oneTime)
        #expect(h.session(id) == nil)
    }

    @Test("L7: an app a client returned to keeps running after the fresh window closes")
    func claimedAppKeepsRunning() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps, pid: 500)
        let id = h.create(app, .whenInUse)!
        h.restart()

        let back = h.launch(Self.maps, pid: 500)
        h.call(back, .resumeSession(id.description))
        h.advance(30)
        #expect(h.appState(Self.maps) == .foreground)
        #expect(h.inUse(Self.maps))
        #expect(h.state(id) == .active)
    }

    @Test("L7: a terminated app keeps its relaunch window across a restart (R2)")
    func restartKeepsRelaunchWindow() {
        var h = Harness()
        let app = h.launch(Self.maps)
        h.disconnect(app)
        h.advance(3)

        h.restart()
        #expect(h.appState(Self.maps) == .terminated)
        #expect(h.inUse(Self.maps))
        h.advance(6.9)
        #expect(h.appState(Self.maps) == .terminated)
        h.advance(0.1)
        #expect(h.appState(Self.maps) == .notRunning)
        #expect(!h.inUse(Self.maps))
    }

    @Test("L7: an app kept in use by its background activity session stays in use across a restart")
    func restartKeepsBackgroundActivityInUse() {
        var h = Harness()
        h.set(Self.run, .whileUsing)
        let app = h.launch(Self.run, pid: 500)
        let activity = h.beginActivity(app)!
        h.call(app, .setAppState(.background))
        h.advance(30)  // past the grace: only the background activity keeps it in use
        #expect(h.inUse(Self.run))

        h.restart()
        #expect(h.inUse(Self.run))
        #expect(h.state(activity) == .lingering)
        #expect(h.mask(activity) == [])
        let back = h.launch(Self.run, pid: 500)
        #expect(h.inUse(Self.run))  // between Hello and ResumeSession the library has not yet taken it back
        h.call(back, .resumeSession(activity.description))
        h.advance(30)
        #expect(h.inUse(Self.run))
        #expect(h.state(activity) == .active)
    }

    @Test("L7: an app in use by a background activity session no one takes back stops with the window; Allow Once ends")
    func unclaimedBackgroundActivityEndsUse() {
        var h = Harness()
        let app = h.launch(Self.run)
        _ = h.create(app, .whenInUse)!
        h.answer(Self.run, .allowOnce)
        let activity = h.beginActivity(app)!
        h.call(app, .setAppState(.background))
        h.advance(30)

        h.restart()
        h.advance(9.9)
        #expect(h.inUse(Self.run))
        #expect(h.authorization(Self.run).oneTime)
        h.advance(0.1)
        #expect(h.session(activity) == nil)
        #expect(h.appState(Self.run) == .notRunning)
        #expect(!h.inUse(Self.run))
        #expect(h.status(Self.run) == .notDetermined)
        #expect(!h.authorization(Self.run).oneTime)
    }

    @Test("L6: a timer after a restart, at once, repeated or early, does no harm")
    func timerAfterRestart() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse)!
        h.restart()
        let restartedAt = h.now

        h.send(.deadlineReached)  // the shell wakes the core as it starts (R4): nothing is due yet
        #expect(h.armedTimers == [restartedAt.adding(.seconds(10))])
        #expect(h.state(id) == .lingering)
        h.send(.deadlineReached)
        #expect(h.last.isEmpty)
        h.advance(4)
        #expect(h.last.isEmpty)
        #expect(h.appState(Self.maps) == .foreground)

        h.advance(6)
        #expect(h.session(id) == nil)
        #expect(h.appState(Self.maps) == .notRunning)
    }

    @Test("S14: after a restart the same process takes back each of its sessions; none covers another")
    func resumeAfterRestart() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps, pid: 500)
        let first = h.create(app, .whenInUse)!
        let second = h.create(app, .whenInUse)!
        let masks = [h.mask(first), h.mask(second)]
        h.restart()

        let back = h.launch(Self.maps, pid: 500)
        h.call(back, .resumeSession(first.description))
        #expect(h.state(first) == .active)
        #expect(h.state(second) == .lingering)
        h.call(back, .resumeSession(second.description))
        #expect(h.state(second) == .active)
        #expect([h.mask(first), h.mask(second)] == masks)
        #expect(h.core.sessions[first]?.owner == back)
        #expect(h.core.sessions[second]?.owner == back)
    }

    @Test("S3: a session created after a restart gets a new id, never one used before it")
    func idsAreNotReused() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let before = h.create(app, .whenInUse)!
        h.restart()

        let back = h.launch(Self.maps)
        let after = h.create(back, .noAuthorization)!
        #expect(after != before)
        #expect(after.epoch != before.epoch)
        #expect(h.state(before) == .lingering)  // a `none` session covers no whenInUse one
    }
}

extension Harness {
    /// Restarts the daemon now: a new core restored from the stored snapshot, with every connection gone.
    fileprivate mutating func restart() {
        core = LocationCore(
            configuration: core.configuration,
            manifests: Harness.defaultManifests,
            restoring: core.snapshot,
            epoch: core.epoch + 1,
            at: now
        )
    }

    /// Begins a background activity session; `nil` if it was unavailable.
    fileprivate mutating func beginActivity(_ client: ClientID) -> SessionID? {
        let call = call(client, .beginBackgroundActivity)
        guard case .session(let view)? = reply(to: call) else { return nil }
        return view.id
    }

    /// The timers the last event armed, in order (`nil`: disarmed).
    fileprivate var armedTimers: [Instant?] {
        var timers: [Instant?] = []
        for case .armTimer(let at) in last { timers.append(at) }
        return timers
    }
}
