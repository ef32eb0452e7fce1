import LocationTestSupport
import Testing

@testable import LocationCore

/// SEMANTICS §4: the app lifecycle, "in use", lingering sessions and the grants that end with use.
@Suite("Lifecycle")
struct LifecycleTests {
    static let maps = "com.ex.maps"
    static let run = "com.ex.run"

    // MARK: L1: Hello and SetAppState

    @Test("L1: Hello launches a not-running app in the foreground")
    func helloLaunchesInForeground() {
        var h = Harness()
        #expect(h.appState(Self.maps) == .notRunning)
        _ = h.launch(Self.maps)
        #expect(h.appState(Self.maps) == .foreground)
        #expect(h.inUse(Self.maps))
    }

    @Test("L1: Hello(state: background) launches the app in the background, not in use until foregrounded")
    func backgroundLaunchIsNotInUse() {
        var h = Harness()
        let app = h.launch(Self.maps, state: .background)
        #expect(h.appState(Self.maps) == .background)
        #expect(!h.inUse(Self.maps))
        #expect(h.core.apps[Self.maps]!.graceEnds == nil)
        #expect(h.armedTimers == [])

        h.call(app, .setAppState(.foreground))
        #expect(h.appState(Self.maps) == .foreground)
        #expect(h.inUse(Self.maps))
    }

    @Test("L1: a second connection's Hello leaves a running app's state unchanged")
    func helloOfRunningAppChangesNothing() {
        var h = Harness()
        let app = h.launch(Self.maps)
        _ = h.launch(Self.maps, state: .background)
        #expect(h.appState(Self.maps) == .foreground)

        h.call(app, .setAppState(.background))
        _ = h.launch(Self.maps, state: .foreground)
        #expect(h.appState(Self.maps) == .background)
    }

    @Test("L1: Hello inside the relaunch window brings a terminated app back in the foreground")
    func relaunchInsideWindow() {
        var h = Harness()
        let app = h.launch(Self.maps)
        h.disconnect(app)
        #expect(h.appState(Self.maps) == .terminated)

        h.advance(4)
        _ = h.launch(Self.maps)
        #expect(h.appState(Self.maps) == .foreground)
        #expect(h.core.apps[Self.maps]!.relaunchEnds == nil)
        h.advance(6)  // the old window's end passes: nothing happens
        #expect(h.appState(Self.maps) == .foreground)
    }

    @Test("L1: a background relaunch inside the window of an app in use starts its grace from that moment")
    func backgroundRelaunchStartsGrace() {
        var h = Harness()
        let app = h.launch(Self.maps)
        h.disconnect(app)
        #expect(h.inUse(Self.maps))  // L2: terminated while in use

        h.advance(4)
        let relaunchedAt = h.now
        _ = h.launch(Self.maps, state: .background)
        #expect(h.appState(Self.maps) == .background)
        #expect(h.inUse(Self.maps))
        #expect(h.core.apps[Self.maps]!.graceEnds == relaunchedAt.adding(.seconds(10)))

        h.advance(9.9)
        #expect(h.inUse(Self.maps))
        h.advance(0.1)
        #expect(!h.inUse(Self.maps))
        #expect(h.appState(Self.maps) == .background)
    }

    @Test("L1: a background relaunch of an app not in use at termination gets no grace")
    func backgroundRelaunchOfIdleAppHasNoGrace() {
        var h = Harness()
        let app = h.launch(Self.maps, state: .background)
        h.disconnect(app)
        #expect(h.appState(Self.maps) == .terminated)
        #expect(!h.inUse(Self.maps))

        h.advance(2)
        _ = h.launch(Self.maps, state: .background)
        #expect(h.appState(Self.maps) == .background)
        #expect(!h.inUse(Self.maps))
        #expect(h.core.apps[Self.maps]!.graceEnds == nil)
    }

    @Test("L1: SetAppState moves the app between foreground and background")
    func setAppStateMoves() {
        var h = Harness()
        let app = h.launch(Self.maps)
        let call = h.call(app, .setAppState(.background))
        #expect(h.reply(to: call) == .empty)
        #expect(h.appState(Self.maps) == .background)
        #expect(h.core.apps[Self.maps]!.graceEnds == h.now.adding(.seconds(10)))

        h.call(app, .setAppState(.foreground))
        #expect(h.appState(Self.maps) == .foreground)
        #expect(h.core.apps[Self.maps]!.graceEnds == nil)
    }

    @Test("L1: Admin.SetAppState moves a running app; an app that is not running is refused")
    func adminSetAppState() {
        var h = Harness()
        let shell = h.connect()
        let refused = h.call(shell, .adminSetAppState(appID: Self.maps, state: .foreground, user: nil))
        guard case .invalidParameter(parameter: "appId", _)? = h.error(of: refused) else {
            Issue.record("expected InvalidParameter(appId), got \(h.last)")
            return
        }
        #expect(h.appState(Self.maps) == .notRunning)

        _ = h.launch(Self.maps)
        let moved = h.call(shell, .adminSetAppState(appID: Self.maps, state: .background, user: nil))
        #expect(h.reply(to: moved) == .empty)
        #expect(h.appState(Self.maps) == .background)

        let unknown = h.call(shell, .adminSetAppState(appID: "com.ex.nobody", state: .foreground, user: nil))
        #expect(h.error(of: unknown) == .noSuchApp(appID: "com.ex.nobody"))
    }

    // MARK: L2: in use

    @Test("L2: a backgrounded app stays in use for the background grace, then stops")
    func backgroundGrace() {
        var h = Harness()
        let app = h.launch(Self.maps)
        h.call(app, .setAppState(.background))
        #expect(h.inUse(Self.maps))
        h.advance(9.9)
        #expect(h.inUse(Self.maps))
        h.advance(0.1)
        #expect(!h.inUse(Self.maps))
        #expect(h.appState(Self.maps) == .background)
    }

    @Test("L2: a configured background-grace replaces the default")
    func configuredGrace() {
        var h = Harness(configuration: CoreConfiguration(backgroundGrace: .seconds(3)))
        let app = h.launch(Self.maps)
        h.call(app, .setAppState(.background))
        #expect(h.armedTimers == [h.now.adding(.seconds(3))])
        h.advance(3)
        #expect(!h.inUse(Self.maps))
    }

    @Test("L2: an app that owns a background activity session stays in use in the background")
    func backgroundActivityKeepsInUse() {
        var h = Harness()
        h.set(Self.run, .whileUsing)
        let app = h.launch(Self.run)
        h.call(app, .beginBackgroundActivity)
        h.call(app, .setAppState(.background))
        h.advance(60)
        #expect(h.appState(Self.run) == .background)
        #expect(h.inUse(Self.run))
    }

    @Test("L2: a terminated app that was in use stays in use until the relaunch window closes")
    func terminatedInUseUntilWindowCloses() {
        var h = Harness()
        let app = h.launch(Self.maps)
        h.disconnect(app)
        #expect(h.appState(Self.maps) == .terminated)
        #expect(h.inUse(Self.maps))
        h.advance(9.9)
        #expect(h.inUse(Self.maps))
        h.advance(0.1)
        #expect(!h.inUse(Self.maps))
        #expect(h.appState(Self.maps) == .notRunning)
    }

    @Test("L2: in use at termination is judged before the closing client's background activity lingers")
    func inUseJudgedBeforeLingering() {
        var h = Harness()
        h.set(Self.run, .whileUsing)
        let app = h.launch(Self.run)
        h.call(app, .beginBackgroundActivity)
        h.call(app, .setAppState(.background))
        h.advance(30)  // past the grace: only the background activity keeps it in use
        #expect(h.inUse(Self.run))

        h.disconnect(app)
        #expect(h.appState(Self.run) == .terminated)
        #expect(h.inUse(Self.run))
        h.advance(10)
        #expect(!h.inUse(Self.run))
    }

    @Test("L2: a dismissed prompt returns at the next start of use, not on a foreground within the grace")
    func startOfUseLiftsSuppression() {
        var h = Harness()
        let app = h.launch(Self.maps)
        _ = h.create(app, .whenInUse)
        #expect(h.prompts(Self.maps).count == 1)
        h.advance(120)  // P8: dismissed, and suppressed
        #expect(h.prompts(Self.maps).isEmpty)

        h.call(app, .setAppState(.background))
        h.advance(5)
        h.call(app, .setAppState(.foreground))  // still in use: no start of use
        #expect(h.prompts(Self.maps).isEmpty)

        h.call(app, .setAppState(.background))
        h.advance(10)
        #expect(!h.inUse(Self.maps))
        h.call(app, .setAppState(.foreground))  // a start of use
        #expect(h.prompts(Self.maps).map(\.kind) == [.authorization])
    }

    // MARK: L3: lingering and Goodbye

    @Test("L3: sessions linger for the relaunch window after their owner closes without Goodbye")
    func sessionsLinger() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse)!
        let closedAt = h.now
        h.disconnect(app)

        let view = h.session(id)!
        #expect(view.state == .lingering)
        #expect(view.deadline == closedAt.adding(.seconds(10)))
        #expect(view.remaining == .seconds(10))
        let stored = h.persisted.compactMap { if case .session(let s) = $0 { s } else { nil } }
        #expect(stored.map(\.id) == [id])
        #expect(stored.first?.lingerEnds == view.deadline)
        #expect(h.appState(Self.maps) == .terminated)

        h.advance(9.9)
        #expect(h.state(id) == .lingering)
        #expect(h.session(id)?.remaining == .seconds(0.1))
        h.advance(0.1)
        #expect(h.session(id) == nil)
        #expect(h.persisted.contains(.sessionRemoved(AppKey.noUser(Self.maps), id)))
    }

    @Test("L3: a closing client's sessions linger even if other clients of the app remain")
    func lingerWhileOthersRemain() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let first = h.launch(Self.maps)
        let second = h.launch(Self.maps)
        let closing = h.create(first, .whenInUse)!
        let staying = h.create(second, .whenInUse)!
        h.disconnect(first)

        #expect(h.state(closing) == .lingering)
        #expect(h.session(closing)?.deadline == h.now.adding(.seconds(10)))
        #expect(h.state(staying) == .active)
        #expect(h.appState(Self.maps) == .foreground)
        h.advance(10)
        #expect(h.session(closing) == nil)
        #expect(h.state(staying) == .active)
    }

    @Test("L3: a lingering session keeps the requirement and the provider but owns no stream")
    func lingeringKeepsProviderWarm() {
        var h = Harness()
        h.set(Self.maps, .always)
        let app = h.launch(Self.maps)
        let id = h.create(app, .always)!
        let stream = h.call(app, .sessionDiagnostics(id.description))
        #expect(h.core.isProviderRunning)
        h.disconnect(app)

        #expect(h.core.apps[Self.maps]!.effectiveRequirement == .always)
        #expect(h.core.isProviderRunning)
        #expect(!h.last.contains { if case .provider = $0 { true } else { false } })
        #expect(h.messages(to: stream) == [])  // the connection is gone: nothing is delivered
        h.advance(10)
        #expect(!h.core.isProviderRunning)
        #expect(h.last.contains { if case .provider(running: false) = $0 { true } else { false } })
    }

    @Test("L3: when the last client closes without Goodbye the app is terminated with a relaunch window")
    func lastCloseTerminates() {
        var h = Harness()
        let first = h.launch(Self.maps)
        let second = h.launch(Self.maps)
        h.disconnect(first)
        #expect(h.appState(Self.maps) == .foreground)
        let closedAt = h.now
        h.disconnect(second)
        #expect(h.appState(Self.maps) == .terminated)
        #expect(h.core.apps[Self.maps]!.relaunchEnds == closedAt.adding(.seconds(10)))
    }

    @Test("L3: Goodbye ends at once every session of the calling process's connections and unbinds them")
    func goodbyeSpeaksForTheProcess() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let main = h.launch(Self.maps, pid: 77)
        let helper = h.launch(Self.maps, pid: 77)
        let other = h.launch(Self.maps, pid: 88)
        let mainSession = h.create(main, .whenInUse)!
        let helperSession = h.create(helper, .whenInUse)!
        let otherSession = h.create(other, .whenInUse)!

        let bye = h.call(main, .goodbye)
        #expect(h.reply(to: bye) == .empty)
        #expect(h.session(mainSession) == nil)
        #expect(h.session(helperSession) == nil)
        #expect(h.persisted.contains(.sessionRemoved(AppKey.noUser(Self.maps), mainSession)))
        #expect(h.persisted.contains(.sessionRemoved(AppKey.noUser(Self.maps), helperSession)))
        #expect(h.state(otherSession) == .active)
        #expect(h.appState(Self.maps) == .foreground)
        #expect(h.core.apps[Self.maps]!.clients == [other])

        let unbound = h.call(helper, .listSessions)
        #expect(h.error(of: unbound) == .helloRequired)
        h.disconnect(helper)  // a later close of an unbound connection changes nothing
        #expect(h.last.isEmpty)
        #expect(h.appState(Self.maps) == .foreground)
    }

    @Test("L3: Goodbye from the last process makes the app notRunning and ends its lingering sessions")
    func goodbyeOfLastProcess() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let old = h.launch(Self.maps)
        let lingering = h.create(old, .always)!
        h.disconnect(old)
        let current = h.launch(Self.maps)
        #expect(h.state(lingering) == .lingering)

        h.call(current, .goodbye)
        #expect(h.appState(Self.maps) == .notRunning)
        #expect(!h.inUse(Self.maps))
        #expect(h.core.apps[Self.maps]!.relaunchEnds == nil)
        #expect(h.session(lingering) == nil)
        #expect(h.persisted.contains(.sessionRemoved(AppKey.noUser(Self.maps), lingering)))
        #expect(h.armedTimers == [nil])
    }

    // MARK: L4: relaunch-adopt and covering

    @Test("L4: a relaunch late in the window extends lingering deadlines to relaunch-adopt")
    func relaunchAdoptExtends() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse)!
        let closedAt = h.now
        h.disconnect(app)

        h.advance(8)
        let helloAt = h.now
        let relaunched = h.connect()
        let hello = h.call(relaunched, .hello(appID: Self.maps, state: nil))
        guard case .hello(_, let lingering)? = h.reply(to: hello) else {
            Issue.record("expected a Hello reply, got \(h.last)")
            return
        }
        #expect(lingering.map(\.id) == [id])
        #expect(h.session(id)?.deadline == helloAt.adding(.seconds(5)))
        #expect(h.session(id)?.remaining == .seconds(5))
        #expect(h.armedTimers == [closedAt.adding(.seconds(13))])
        h.advance(4.9)
        #expect(h.state(id) == .lingering)
        h.advance(0.1)
        #expect(h.session(id) == nil)
    }

    @Test("L4: a relaunch early in the window keeps the longer remaining deadline")
    func relaunchKeepsLongerDeadline() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse)!
        let closedAt = h.now
        h.disconnect(app)

        h.advance(2)
        _ = h.launch(Self.maps)
        #expect(h.session(id)?.deadline == closedAt.adding(.seconds(10)))
        #expect(h.session(id)?.remaining == .seconds(8))
    }

    @Test("L4: a new process's Hello while an old one still runs extends lingering deadlines too")
    func newProcessExtends() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let closing = h.launch(Self.maps, pid: 10)
        _ = h.launch(Self.maps, pid: 20)
        let id = h.create(closing, .whenInUse)!
        h.disconnect(closing)
        #expect(h.appState(Self.maps) == .foreground)

        h.advance(7)
        _ = h.launch(Self.maps, pid: 30)
        #expect(h.session(id)?.deadline == h.now.adding(.seconds(5)))
    }

    @Test("L4: a configured relaunch-adopt replaces the default")
    func configuredAdopt() {
        var h = Harness(configuration: CoreConfiguration(relaunchAdopt: .seconds(8)))
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse)!
        h.disconnect(app)
        h.advance(9)
        _ = h.launch(Self.maps)
        #expect(h.session(id)?.remaining == .seconds(8))
    }

    @Test("L4: a new session of the same or a stronger requirement covers a lingering one, which ends")
    func coveredByRequirement() {
        var h = Harness()
        h.set(Self.maps, .always)
        let old = h.launch(Self.maps)
        let lingering = h.create(old, .whenInUse)!
        h.disconnect(old)
        let new = h.launch(Self.maps)

        let covering = h.create(new, .always)!
        #expect(h.session(lingering) == nil)
        #expect(h.persisted.contains(.sessionRemoved(AppKey.noUser(Self.maps), lingering)))
        #expect(h.state(covering) == .active)
        let resume = h.call(new, .resumeSession(lingering.description))
        #expect(h.error(of: resume) == .sessionInvalidated(id: lingering.description))
    }

    @Test("L4: a weaker new session does not cover a lingering one")
    func weakerDoesNotCover() {
        var h = Harness()
        h.set(Self.maps, .always)
        let old = h.launch(Self.maps)
        let lingering = h.create(old, .always)!
        h.disconnect(old)
        let new = h.launch(Self.maps)

        _ = h.create(new, .whenInUse)!
        _ = h.create(new, .noAuthorization)!
        #expect(h.state(lingering) == .lingering)
    }

    @Test("L4: a lingering session with a purpose key is covered only by a session with the same key")
    func coveredByPurposeKey() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let old = h.launch(Self.maps)
        let lingering = h.create(old, .whenInUse, purposeKey: "Navigation")!
        h.disconnect(old)
        let new = h.launch(Self.maps)

        _ = h.create(new, .whenInUse)!
        #expect(h.state(lingering) == .lingering)
        _ = h.create(new, .whenInUse, purposeKey: "Navigation")!
        #expect(h.session(lingering) == nil)
    }

    @Test("L4: a lingering session without a purpose key is covered by one with a key")
    func keylessCoveredByKeyed() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let old = h.launch(Self.maps)
        let lingering = h.create(old, .whenInUse)!
        h.disconnect(old)
        let new = h.launch(Self.maps)

        _ = h.create(new, .whenInUse, purposeKey: "Navigation")!
        #expect(h.session(lingering) == nil)
    }

    @Test("L4: a resume ends no other session: after a restart two processes of an app each take theirs back")
    func resumeEndsNoOtherSession() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let first = h.launch(Self.maps, pid: 10)
        let second = h.launch(Self.maps, pid: 20)
        let firsts = h.create(first, .always)!
        let seconds = h.create(second, .whenInUse)!
        // A daemon restart closes both connections at once (R3); each process reconnects and resumes.
        h.disconnect(first)
        h.disconnect(second)
        let firstAgain = h.launch(Self.maps, pid: 10)
        let secondAgain = h.launch(Self.maps, pid: 20)

        let resumed = h.call(firstAgain, .resumeSession(firsts.description))
        #expect(h.error(of: resumed) == nil)
        #expect(h.state(seconds) == .lingering, "an always session resumed does not end a whenInUse one")
        let taken = h.call(secondAgain, .resumeSession(seconds.description))
        #expect(h.error(of: taken) == nil)
        #expect(h.state(firsts) == .active && h.state(seconds) == .active)
    }

    @Test("L8: a process never covers its own lingering sessions; another process does")
    func processDoesNotCoverItsOwn() {
        // One process with two connections: the library reconnects one of them; the session it left
        // lingering is still that process's to resume, not something a sibling connection replaces.
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let closing = h.launch(Self.maps, pid: 42)
        let sibling = h.launch(Self.maps, pid: 42)
        let lingering = h.create(closing, .whenInUse)!
        h.disconnect(closing)

        _ = h.create(sibling, .always)!
        #expect(h.state(lingering) == .lingering)
        let stranger = h.launch(Self.maps, pid: 43)
        _ = h.create(stranger, .whenInUse)!
        #expect(h.session(lingering) == nil)
    }

    // MARK: L5: grants that end with use

    @Test("L5: Allow Once ends when the background grace expires with no background activity session")
    func allowOnceEndsAtGraceExpiry() {
        var h = Harness()
        let app = h.allowOnce(Self.maps)
        h.call(app, .setAppState(.background))
        h.advance(9.9)
        #expect(h.authorization(Self.maps).oneTime)
        h.advance(0.1)
        #expect(h.status(Self.maps) == .notDetermined)
        #expect(!h.authorization(Self.maps).oneTime)
        #expect(h.authorization(Self.maps).settingsLabel == .askNextTime)
        #expect(h.persisted.contains(.record(AppKey.noUser(Self.maps), AuthorizationRecord())))
    }

    @Test("L5: Allow Once survives the grace while a background activity session is owned")
    func allowOnceKeptByBackgroundActivity() {
        var h = Harness()
        let app = h.allowOnce(Self.run)
        h.call(app, .beginBackgroundActivity)
        h.call(app, .setAppState(.background))
        h.advance(60)
        #expect(h.status(Self.run) == .authorizedWhenInUse)
        #expect(h.authorization(Self.run).oneTime)
    }

    @Test("L5: Allow Once ends when a background activity session ends after the grace")
    func allowOnceEndsWithBackgroundActivity() {
        var h = Harness()
        let app = h.allowOnce(Self.run)
        let begin = h.call(app, .beginBackgroundActivity)
        guard case .session(let activity)? = h.reply(to: begin) else {
            Issue.record("BeginBackgroundActivity failed: \(h.last)")
            return
        }
        h.call(app, .setAppState(.background))
        h.advance(30)
        #expect(h.authorization(Self.run).oneTime)

        h.call(app, .invalidateSession(activity.id.description))
        #expect(!h.inUse(Self.run))
        #expect(h.status(Self.run) == .notDetermined)
        #expect(!h.authorization(Self.run).oneTime)
    }

    @Test("L5: Allow Once ends when a background activity session starts lingering after the grace")
    func allowOnceEndsWhenActivityLingers() {
        var h = Harness()
        let owner = h.allowOnce(Self.run)
        _ = h.launch(Self.run)  // another process keeps the app running
        h.call(owner, .beginBackgroundActivity)
        h.call(owner, .setAppState(.background))
        h.advance(30)
        #expect(h.authorization(Self.run).oneTime)

        h.disconnect(owner)
        #expect(h.appState(Self.run) == .background)
        #expect(!h.inUse(Self.run))
        #expect(h.status(Self.run) == .notDetermined)
    }

    @Test("L5: Allow Once ends when the relaunch window closes with no relaunch")
    func allowOnceEndsWithRelaunchWindow() {
        var h = Harness()
        let app = h.allowOnce(Self.maps)
        h.disconnect(app)
        h.advance(9.9)
        #expect(h.authorization(Self.maps).oneTime)
        h.advance(0.1)
        #expect(h.appState(Self.maps) == .notRunning)
        #expect(h.status(Self.maps) == .notDetermined)
        #expect(!h.authorization(Self.maps).oneTime)
    }

    @Test("L5: a relaunch inside the window keeps Allow Once: use never stopped")
    func relaunchKeepsAllowOnce() {
        var h = Harness()
        let app = h.allowOnce(Self.maps)
        h.disconnect(app)
        h.advance(5)
        _ = h.launch(Self.maps)
        h.advance(60)
        #expect(h.status(Self.maps) == .authorizedWhenInUse)
        #expect(h.authorization(Self.maps).oneTime)
    }

    @Test("L5: Allow Once ends at Goodbye from the app's last process")
    func allowOnceEndsAtLastGoodbye() {
        var h = Harness()
        _ = h.allowOnce(Self.maps, pid: 5)
        let sibling = h.launch(Self.maps, pid: 5)
        h.call(sibling, .goodbye)
        #expect(h.appState(Self.maps) == .notRunning)
        #expect(h.status(Self.maps) == .notDetermined)
        #expect(!h.authorization(Self.maps).oneTime)
    }

    @Test("L5: Goodbye from one of two processes keeps Allow Once")
    func goodbyeOfOneProcessKeepsAllowOnce() {
        var h = Harness()
        let app = h.allowOnce(Self.maps, pid: 5)
        _ = h.launch(Self.maps, pid: 6)
        h.call(app, .goodbye)
        #expect(h.appState(Self.maps) == .foreground)
        #expect(h.authorization(Self.maps).oneTime)
    }

    @Test("L5: a temporary full-accuracy grant ends with use; status and accuracy stay")
    func temporaryFullAccuracyEnds() {
        var h = Harness()
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse, purposeKey: "Navigation")!
        h.answer(Self.maps, .allowWhileUsing, accuracy: .reduced)
        #expect(h.prompts(Self.maps).map(\.kind) == [.temporaryFullAccuracy])
        h.answer(Self.maps, .allow)
        #expect(h.authorization(Self.maps).temporaryFullAccuracy)
        #expect(h.mask(id) == [])

        h.call(app, .setAppState(.background))
        h.advance(10)
        let view = h.authorization(Self.maps)
        #expect(!view.temporaryFullAccuracy)
        #expect(view.status == .authorizedWhenInUse)
        #expect(view.accuracy == .reducedAccuracy)
        #expect(h.mask(id) == [.insufficientlyInUse, .fullAccuracyDenied])
    }

    // MARK: L6: timers

    @Test("L6: lingering deadlines are armed: the core asks to be woken at the earliest one")
    func deadlinesAreArmed() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        #expect(h.armedTimers == [])
        let first = h.launch(Self.maps)
        let second = h.launch(Self.maps)
        let early = h.create(first, .whenInUse)!
        let late = h.create(second, .whenInUse)!
        #expect(h.armedTimers == [])

        let t0 = h.now
        h.disconnect(first)
        #expect(h.armedTimers == [t0.adding(.seconds(10))])
        h.advance(3)
        h.disconnect(second)  // lingers until t0 + 13, and so does the relaunch window
        #expect(h.armedTimers == [])  // the earliest is still t0 + 10
        #expect(h.session(late)?.deadline == t0.adding(.seconds(13)))

        h.advance(7)
        #expect(h.session(early) == nil)
        #expect(h.armedTimers == [t0.adding(.seconds(13))])
    }

    @Test("L6: the armed timer moves as deadlines come and go")
    func armedTimerFollowsDeadlines() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse)!
        let t0 = h.now
        h.disconnect(app)
        #expect(h.armedTimers == [t0.adding(.seconds(10))])

        h.advance(8)
        let relaunched = h.launch(Self.maps)  // L4: the deadline moves later, the relaunch window goes
        #expect(h.armedTimers == [t0.adding(.seconds(13))])

        h.call(relaunched, .setAppState(.background))  // a grace ending after the lingering deadline:
        #expect(h.armedTimers == [])  // the earliest is unchanged, so nothing is re-armed
        h.call(relaunched, .setAppState(.foreground))
        #expect(h.armedTimers == [])

        h.call(relaunched, .resumeSession(id.description))  // no deadline left
        #expect(h.armedTimers == [nil])
        h.call(relaunched, .setAppState(.background))
        #expect(h.armedTimers == [h.now.adding(.seconds(10))])
    }

    @Test("L6: a timer that fires late ends what is due, once")
    func lateTimer() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse)!
        h.disconnect(app)

        h.advance(30)  // twenty seconds late
        #expect(h.session(id) == nil)
        #expect(h.appState(Self.maps) == .notRunning)
        #expect(h.persisted.filter { $0 == .sessionRemoved(AppKey.noUser(Self.maps), id) }.count == 1)
        #expect(h.armedTimers == [nil])
    }

    @Test("L6: a duplicate wake-up does nothing")
    func duplicateTimer() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse)!
        h.disconnect(app)
        h.advance(10)
        #expect(h.session(id) == nil)

        h.send(.deadlineReached)
        #expect(h.last.isEmpty)
        #expect(h.appState(Self.maps) == .notRunning)
    }

    @Test("L6: every event re-checks the deadlines: a call after a missed timer sees the session ended")
    func missedTimer() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let old = h.launch(Self.maps)
        let current = h.launch(Self.maps)
        let id = h.create(old, .whenInUse)!
        h.disconnect(old)

        h.now = h.now.adding(.seconds(11))  // the timer never fired
        let resume = h.call(current, .resumeSession(id.description))
        #expect(h.error(of: resume) == .sessionInvalidated(id: id.description))
        #expect(h.persisted.contains(.sessionRemoved(AppKey.noUser(Self.maps), id)))
    }

    @Test("L6: an early wake-up, or one for a deadline that moved, does nothing")
    func earlyOrStaleTimer() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse)!
        h.disconnect(app)

        h.advance(5)
        #expect(h.last.isEmpty)
        #expect(h.state(id) == .lingering)

        h.advance(3)
        _ = h.launch(Self.maps)  // deadline moves from +10 to +13
        h.advance(2)  // the timer armed for +10 fires
        #expect(h.last.isEmpty)
        #expect(h.state(id) == .lingering)
        h.advance(3)
        #expect(h.session(id) == nil)
    }
}

extension Harness {
    /// The timers the last event armed, in order (`nil`: disarmed).
    fileprivate var armedTimers: [Instant?] {
        var timers: [Instant?] = []
        for case .armTimer(let at) in last { timers.append(at) }
        return timers
    }

    /// Launches the app in the foreground with a `whenInUse` session and answers its prompt with Allow Once.
    fileprivate mutating func allowOnce(_ appID: String, pid: Int32? = nil) -> ClientID {
        let app = launch(appID, pid: pid)
        _ = create(app, .whenInUse)
        answer(appID, .allowOnce)
        #expect(authorization(appID).oneTime)
        #expect(status(appID) == .authorizedWhenInUse)
        return app
    }
}
