import LocationTestSupport
import Testing

@testable import LocationCore

/// SEMANTICS §5: explicit, implicit and background activity sessions, the prompts they raise, and resuming.
@Suite("Sessions")
struct SessionTests {
    static let maps = "com.ex.maps"
    static let run = "com.ex.run"
    static let bare = "com.ex.bare"
    static let explicit = "com.ex.explicit"
    static let approx = "com.ex.approx"
    static let bareFile = "apps.d/com.ex.bare.toml"
    static let approxFile = "apps.d/com.ex.approx.toml"

    // MARK: S1: CreateSession

    @Test("S1: CreateSession creates a session owned by the caller and replies with it")
    func createSession() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let call = h.call(app, .createSession(.whenInUse, purposeKey: nil))
        guard case .session(let view)? = h.reply(to: call) else {
            Issue.record("CreateSession failed: \(h.last)")
            return
        }
        #expect(view.appID == Self.maps)
        #expect(view.kind == .explicit)
        #expect(view.requirement == .whenInUse)
        #expect(view.purposeKey == nil)
        #expect(view.state == .active)
        #expect(view.diagnostic == [])
        #expect(view.deadline == nil)
        #expect(h.core.sessions[view.id]?.owner == app)
        #expect(h.persisted.map(\.sessionID) == [view.id])
        #expect(h.sessions(of: app).map(\.id) == [view.id])
    }

    @Test("S1: prompts are raised before the reply, and the reply's mask shows them")
    func createRaisesPromptBeforeReply() {
        var h = Harness()
        let app = h.launch(Self.maps)
        let call = h.call(app, .createSession(.whenInUse, purposeKey: nil))
        guard case .session(let view)? = h.reply(to: call) else {
            Issue.record("CreateSession failed: \(h.last)")
            return
        }
        #expect(h.prompts(Self.maps).map(\.kind) == [.authorization])
        #expect(view.diagnostic == [.authorizationRequestInProgress])
        #expect(view.state == .limited)
        let promptWrite = h.last.firstIndex { if case .persist(.prompt) = $0 { true } else { false } }
        let reply = h.last.firstIndex { if case .reply(call, _) = $0 { true } else { false } }
        #expect(promptWrite != nil && reply != nil && promptWrite! < reply!)
    }

    @Test("S1: a none session needs no authorization: active at once, no prompt")
    func noneSessionIsActive() {
        var h = Harness()
        let app = h.launch(Self.maps)
        let id = h.create(app, .noAuthorization)!
        #expect(h.state(id) == .active)
        #expect(h.mask(id) == [])
        #expect(h.prompts(Self.maps).isEmpty)
        #expect(h.status(Self.maps) == .notDetermined)
    }

    // MARK: S2: usage descriptions and purpose keys

    @Test("S2: an always session needs NSLocationAlwaysAndWhenInUseUsageDescription; nothing is created")
    func alwaysNeedsDescription() {
        var h = Harness()
        let app = h.launch(Self.approx)
        let call = h.call(app, .createSession(.always, purposeKey: nil))
        #expect(h.error(of: call) == .usageDescriptionMissing(key: Manifest.alwaysKey, manifest: Self.approxFile))
        #expect(h.last.count == 1)
        #expect(h.sessions(of: app).isEmpty)
        #expect(h.prompts(Self.approx).isEmpty)
    }

    @Test("S2: a session above none needs NSLocationWhenInUseUsageDescription; a none session does not")
    func whenInUseNeedsDescription() {
        var h = Harness()
        let app = h.launch(Self.bare)
        let call = h.call(app, .createSession(.whenInUse, purposeKey: nil))
        #expect(h.error(of: call) == .usageDescriptionMissing(key: Manifest.whenInUseKey, manifest: Self.bareFile))
        #expect(h.sessions(of: app).isEmpty)

        #expect(h.create(app, .noAuthorization) != nil)
    }

    @Test("S2: a purpose key missing from the manifest fails with UnknownPurposeKey; nothing is created")
    func unknownPurposeKey() {
        var h = Harness()
        let app = h.launch(Self.maps)
        let call = h.call(app, .createSession(.whenInUse, purposeKey: "Radar"))
        #expect(h.error(of: call) == .unknownPurposeKey(purposeKey: "Radar", manifest: "apps.d/com.ex.maps.toml"))
        #expect(h.sessions(of: app).isEmpty)
        #expect(h.prompts(Self.maps).isEmpty)
    }

    @Test("S2: RequestAuthorization and RequestTemporaryFullAccuracy check the manifest the same way")
    func requestsCheckManifest() {
        var h = Harness()
        let app = h.launch(Self.approx)
        let always = h.call(app, .requestAuthorization(.always))
        #expect(h.error(of: always) == .usageDescriptionMissing(key: Manifest.alwaysKey, manifest: Self.approxFile))
        let accuracy = h.call(app, .requestTemporaryFullAccuracy(purposeKey: "Navigation"))
        #expect(h.error(of: accuracy) == .unknownPurposeKey(purposeKey: "Navigation", manifest: Self.approxFile))
        #expect(h.prompts(Self.approx).isEmpty)
    }

    @Test("S2: LiveUpdates of an app not opted out and without a when-in-use description fails")
    func liveUpdatesNeedDescription() {
        var h = Harness()
        let app = h.launch(Self.bare)
        let stream = h.call(app, .liveUpdates(.standard))
        #expect(h.error(of: stream) == .usageDescriptionMissing(key: Manifest.whenInUseKey, manifest: Self.bareFile))
        #expect(h.messages(to: stream) == [])
        #expect(h.sessions(of: app).isEmpty)
    }

    // MARK: S3: ending sessions

    @Test("S3: InvalidateSession ends the session at once; its diagnostics stream gets a final reply")
    func invalidateEndsAtOnce() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse)!
        let stream = h.call(app, .sessionDiagnostics(id.description))
        #expect(h.messages(to: stream) == [.diagnostic([], ended: false)])

        let call = h.call(app, .invalidateSession(id.description))
        #expect(h.reply(to: call) == .empty)
        #expect(h.session(id) == nil)
        #expect(h.persisted == [.sessionRemoved(AppKey.noUser(Self.maps), id)])
        #expect(h.messages(to: stream) == [.diagnostic([], ended: true)])
        #expect(h.ended(stream))
        #expect(h.sessions(of: app).isEmpty)
    }

    @Test("S3: calls naming an invalidated session answer SessionInvalidated")
    func endedIDAnswersSessionInvalidated() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse)!
        h.call(app, .invalidateSession(id.description))

        let expected = LocationError.sessionInvalidated(id: id.description)
        let again = h.call(app, .invalidateSession(id.description))
        #expect(h.error(of: again) == expected)
        let resume = h.call(app, .resumeSession(id.description))
        #expect(h.error(of: resume) == expected)
        let diagnostics = h.call(app, .sessionDiagnostics(id.description))
        #expect(h.error(of: diagnostics) == expected)
        #expect(h.messages(to: diagnostics) == [])
    }

    @Test("S3: a session that expired while lingering never becomes active again")
    func expiredSessionStaysEnded() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let old = h.launch(Self.maps)
        let watcher = h.launch(Self.maps)
        let id = h.create(old, .whenInUse)!
        let stream = h.call(watcher, .sessionDiagnostics(id.description))
        h.disconnect(old)
        h.advance(10)

        #expect(h.session(id) == nil)
        #expect(h.messages(to: stream) == [.diagnostic([], ended: true)])
        let resume = h.call(watcher, .resumeSession(id.description))
        #expect(h.error(of: resume) == .sessionInvalidated(id: id.description))
        #expect(h.session(id) == nil)
    }

    @Test("S3: a covered session answers SessionInvalidated and its stream ends")
    func coveredSessionEnds() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let old = h.launch(Self.maps)
        let watcher = h.launch(Self.maps)
        let id = h.create(old, .whenInUse)!
        let stream = h.call(watcher, .sessionDiagnostics(id.description))
        h.disconnect(old)
        _ = h.create(watcher, .whenInUse)!

        #expect(h.ended(stream))
        #expect(h.messages(to: stream) == [.diagnostic([], ended: true)])
        let call = h.call(watcher, .sessionDiagnostics(id.description))
        #expect(h.error(of: call) == .sessionInvalidated(id: id.description))
    }

    @Test("S3: invalidating an implicit session ends its stream with a final reply")
    func invalidateImplicitEndsStream() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let stream = h.call(app, .liveUpdates(.standard))
        let implicit = h.sessions(of: app).first { $0.kind == .implicit }
        guard let implicit else {
            Issue.record("LiveUpdates created no implicit session")
            return
        }

        h.call(app, .invalidateSession(implicit.id.description))
        #expect(h.session(implicit.id) == nil)
        #expect(h.ended(stream))
        #expect(h.last.contains { if case .end(stream, .update?) = $0 { true } else { false } })
        #expect(h.core.apps[Self.maps]!.locationStreams.isEmpty)
        #expect(!h.core.isProviderRunning)
    }

    // MARK: S4: layering

    @Test("S4: the effective requirement is the strongest session's, whatever order they come in")
    func strongestRequirementWins() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        _ = h.create(app, .noAuthorization)!
        #expect(h.core.apps[Self.maps]!.effectiveRequirement == .noAuthorization)
        let always = h.create(app, .always)!
        _ = h.create(app, .whenInUse)!
        #expect(h.core.apps[Self.maps]!.effectiveRequirement == .always)
        h.call(app, .invalidateSession(always.description))
        #expect(h.core.apps[Self.maps]!.effectiveRequirement == .whenInUse)
    }

    @Test("S4: answering While Using with an always session layered in gives provisional Always (P1)")
    func layeredAlwaysMakesProvisional() {
        var h = Harness()
        let app = h.launch(Self.maps)
        _ = h.create(app, .whenInUse)!
        _ = h.create(app, .always)!
        h.answer(Self.maps, .allowWhileUsing)
        #expect(h.status(Self.maps) == .authorizedAlways)
        #expect(h.authorization(Self.maps).provisional)
    }

    @Test("S4: a lingering session still counts for the effective requirement")
    func lingeringCounts() {
        var h = Harness()
        let old = h.launch(Self.maps)
        let current = h.launch(Self.maps)
        _ = h.create(old, .always)!
        _ = h.create(current, .whenInUse)!
        h.disconnect(old)
        #expect(h.core.apps[Self.maps]!.effectiveRequirement == .always)
        h.answer(Self.maps, .allowWhileUsing)
        #expect(h.status(Self.maps) == .authorizedAlways)
        #expect(h.authorization(Self.maps).provisional)
    }

    @Test("S4: no session modifies another: adding or ending one leaves the others as they were")
    func sessionsDoNotModifyEachOther() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let base = h.create(app, .whenInUse)!
        let before = h.session(base)!
        let always = h.create(app, .always)!
        #expect(h.mask(always) == [.alwaysAuthorizationDenied])
        #expect(h.session(base) == before)
        h.call(app, .invalidateSession(always.description))
        #expect(h.session(base) == before)
    }

    // MARK: S5: limits

    @Test("S5: past max-sessions-per-app CreateSession fails with LimitExceeded and nothing else changes")
    func sessionLimit() {
        var h = Harness(configuration: CoreConfiguration(maxSessionsPerApp: 2))
        let app = h.launch(Self.maps)
        _ = h.create(app, .whenInUse)!
        _ = h.create(app, .noAuthorization)!
        let prompts = h.prompts(Self.maps)

        let call = h.call(app, .createSession(.always, purposeKey: nil))
        #expect(h.error(of: call) == .limitExceeded(limit: "max-sessions-per-app", maximum: 2))
        #expect(h.last.count == 1)
        #expect(h.sessions(of: app).count == 2)
        #expect(h.prompts(Self.maps) == prompts)
    }

    @Test("S5: an implicit session counts too: LiveUpdates past the limit fails and opens no stream")
    func implicitSessionLimit() {
        var h = Harness(configuration: CoreConfiguration(maxSessionsPerApp: 1))
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        _ = h.create(app, .noAuthorization)!

        let stream = h.call(app, .liveUpdates(.standard))
        #expect(h.error(of: stream) == .limitExceeded(limit: "max-sessions-per-app", maximum: 1))
        #expect(h.last.count == 1)
        #expect(h.core.apps[Self.maps]!.locationStreams.isEmpty)
        #expect(h.core.streams[stream] == nil)
    }

    @Test("S5: past max-clients-per-app Hello fails with LimitExceeded and nothing else changes")
    func clientLimit() {
        var h = Harness(configuration: CoreConfiguration(maxClientsPerApp: 2))
        h.set(Self.maps, .whileUsing)
        let old = h.launch(Self.maps)
        let lingering = h.create(old, .whenInUse)!
        h.disconnect(old)
        let first = h.launch(Self.maps)
        h.call(first, .setAppState(.background))
        _ = h.launch(Self.maps)
        h.advance(4)
        let deadline = h.session(lingering)?.deadline

        let refused = h.connect()
        let hello = h.call(refused, .hello(appID: Self.maps, state: .foreground))
        #expect(h.error(of: hello) == .limitExceeded(limit: "max-clients-per-app", maximum: 2))
        #expect(h.last.count == 1)
        #expect(h.core.apps[Self.maps]!.clients.count == 2)
        #expect(h.appState(Self.maps) == .background)
        #expect(h.session(lingering)?.deadline == deadline)
        let unbound = h.call(refused, .listSessions)
        #expect(h.error(of: unbound) == .helloRequired)
    }

    // MARK: S6–S9: prompts raised by sessions

    @Test("S6: a foreground whenInUse session raises an authorization prompt while notDetermined")
    func authorizationPrompt() {
        var h = Harness()
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse)!
        let prompts = h.prompts(Self.maps)
        #expect(prompts.count == 1)
        #expect(prompts.first?.kind == .authorization)
        #expect(prompts.first?.options == [.allowWhileUsing, .allowOnce, .deny])
        #expect(prompts.first?.usageDescription == "Shows you on the map")
        #expect(prompts.first?.raisedAt == h.now)
        #expect(h.mask(id) == [.authorizationRequestInProgress])
    }

    @Test("S6: a session of an app launched in the background raises no prompt and reports insufficientlyInUse")
    func noPromptInBackground() {
        var h = Harness()
        let app = h.launch(Self.maps, state: .background)
        let id = h.create(app, .whenInUse)!
        #expect(h.prompts(Self.maps).isEmpty)
        #expect(h.mask(id) == [.insufficientlyInUse])
        #expect(h.state(id) == .limited)

        h.call(app, .setAppState(.foreground))  // coming forward is an evaluation moment
        #expect(h.prompts(Self.maps).map(\.kind) == [.authorization])
    }

    @Test("S6: no prompt while location services are off")
    func noPromptWhenServicesOff() {
        var h = Harness()
        let admin = h.connect()
        h.call(admin, .setLocationServices(false))
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse)!
        #expect(h.prompts(Self.maps).isEmpty)
        #expect(h.mask(id) == [.authorizationDenied, .authorizationDeniedGlobally])
    }

    @Test("S6: a none session raises no authorization prompt")
    func noneRaisesNoPrompt() {
        var h = Harness()
        let app = h.launch(Self.maps)
        _ = h.create(app, .noAuthorization)!
        #expect(h.prompts(Self.maps).isEmpty)
    }

    @Test("S7: an always session of a When-In-Use app in the foreground raises the upgrade prompt")
    func upgradePrompt() {
        var h = Harness()
        let app = h.launch(Self.maps)
        _ = h.create(app, .whenInUse)!
        h.answer(Self.maps, .allowWhileUsing)
        #expect(h.prompts(Self.maps).isEmpty)

        let id = h.create(app, .always)!
        let prompts = h.prompts(Self.maps)
        #expect(prompts.map(\.kind) == [.alwaysUpgrade])
        #expect(prompts.first?.options == [.keepWhileUsing, .changeToAlways])
        #expect(prompts.first?.usageDescription == "Tracks your trips")
        #expect(h.mask(id) == [.authorizationRequestInProgress])
    }

    @Test("S7: no upgrade prompt for an Allow Once grant (P6); the always session reports alwaysAuthorizationDenied")
    func noUpgradeForAllowOnce() {
        var h = Harness()
        let app = h.launch(Self.maps)
        _ = h.create(app, .whenInUse)!
        h.answer(Self.maps, .allowOnce)
        let id = h.create(app, .always)!
        #expect(h.prompts(Self.maps).isEmpty)
        #expect(h.mask(id) == [.alwaysAuthorizationDenied])
    }

    @Test("S7: no upgrade prompt once Always was declined")
    func noUpgradeAfterDecline() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)  // A3: alwaysDecision = declined
        let app = h.launch(Self.maps)
        let id = h.create(app, .always)!
        #expect(h.prompts(Self.maps).isEmpty)
        #expect(h.mask(id) == [.alwaysAuthorizationDenied])
    }

    @Test("S7: no upgrade prompt in the background; it comes when the app returns to the foreground")
    func upgradeWaitsForForeground() {
        var h = Harness()
        let app = h.launch(Self.maps)
        _ = h.create(app, .whenInUse)!
        h.answer(Self.maps, .allowWhileUsing)
        h.call(app, .setAppState(.background))
        _ = h.create(app, .always)!
        #expect(h.prompts(Self.maps).isEmpty)
        h.call(app, .setAppState(.foreground))
        #expect(h.prompts(Self.maps).map(\.kind) == [.alwaysUpgrade])
    }

    @Test("S8: a session with a purpose key under reduced accuracy raises a temporary full-accuracy prompt")
    func accuracyPrompt() {
        var h = Harness()
        let app = h.launch(Self.maps)
        _ = h.create(app, .whenInUse)!
        h.answer(Self.maps, .allowWhileUsing, accuracy: .reduced)
        #expect(h.prompts(Self.maps).isEmpty)

        let id = h.create(app, .whenInUse, purposeKey: "Navigation")!
        let prompts = h.prompts(Self.maps)
        #expect(prompts.map(\.kind) == [.temporaryFullAccuracy])
        #expect(prompts.first?.purposeKey == "Navigation")
        #expect(prompts.first?.options == [.allow, .deny])
        #expect(prompts.first?.usageDescription == "Turn-by-turn needs your precise location")
        #expect(h.mask(id) == [.authorizationRequestInProgress])
    }

    @Test("S8: no accuracy prompt under full accuracy or with a temporary grant")
    func noAccuracyPromptWhenPrecise() {
        var h = Harness()
        h.set(Self.maps, .whileUsing, precise: true)
        let app = h.launch(Self.maps)
        let precise = h.create(app, .whenInUse, purposeKey: "Navigation")!
        #expect(h.prompts(Self.maps).isEmpty)
        #expect(h.mask(precise) == [])

        h.set(Self.maps, nil, precise: false)
        #expect(h.prompts(Self.maps).map(\.kind) == [.temporaryFullAccuracy])
        h.answer(Self.maps, .allow)
        _ = h.create(app, .whenInUse, purposeKey: "Navigation")!
        #expect(h.prompts(Self.maps).isEmpty)
    }

    @Test("S8: no accuracy prompt in the background")
    func noAccuracyPromptInBackground() {
        var h = Harness()
        h.set(Self.maps, .whileUsing, precise: false)
        let app = h.launch(Self.maps, state: .background)
        let id = h.create(app, .whenInUse, purposeKey: "Navigation")!
        #expect(h.prompts(Self.maps).isEmpty)
        #expect(h.mask(id) == [.insufficientlyInUse, .fullAccuracyDenied])
    }

    @Test("S9: prompts of one app queue in order; the next one's time starts when it becomes the head")
    func promptQueue() {
        var h = Harness()
        let app = h.launch(Self.maps)
        _ = h.create(app, .whenInUse)!
        h.answer(Self.maps, .allowWhileUsing, accuracy: .reduced)
        _ = h.create(app, .always, purposeKey: "Navigation")!
        let queue = h.prompts(Self.maps)
        #expect(queue.map(\.kind) == [.alwaysUpgrade, .temporaryFullAccuracy])
        #expect(h.core.prompts[queue[1].id]?.raisedAt == nil)

        h.advance(30)
        let early = h.answer(Self.maps, .allow)  // the head is the upgrade prompt: it offers no `allow`
        #expect(early == .invalidAnswer(id: queue[0].id.description, answer: "allow"))
        let admin = h.connect()
        let skip = h.call(admin, .answerPrompt(id: queue[1].id.description, answer: .allow, accuracy: nil))
        #expect(h.error(of: skip) == .noSuchPrompt(id: queue[1].id.description))

        h.answer(Self.maps, .keepWhileUsing)
        let head = h.prompts(Self.maps)
        #expect(head.map(\.id) == [queue[1].id])
        #expect(head.first?.raisedAt == h.now)
        h.advance(119)
        #expect(h.prompts(Self.maps).map(\.id) == [queue[1].id])
        h.advance(1)  // P8: 120 s from becoming the head
        #expect(h.prompts(Self.maps).isEmpty)
    }

    @Test("S9: a request call calls for its prompt until the requesting client leaves")
    func requestCallsForPrompt() {
        var h = Harness()
        _ = h.launch(Self.maps)
        let requester = h.launch(Self.maps)
        h.call(requester, .requestAuthorization(.whenInUse))
        let prompt = h.prompts(Self.maps)
        #expect(prompt.map(\.kind) == [.authorization])

        h.advance(30)
        #expect(h.prompts(Self.maps) == prompt)
        h.disconnect(requester)
        #expect(h.prompts(Self.maps).isEmpty)
        #expect(h.persisted.contains(.promptRemoved(prompt[0].id)))
    }

    // MARK: S10, S11: implicit sessions and the opt-out

    @Test("S10: LiveUpdates with no explicit session creates an implicit whenInUse session that raises prompts")
    func implicitSession() {
        var h = Harness()
        let app = h.launch(Self.maps)
        let stream = h.call(app, .liveUpdates(.standard))
        let sessions = h.sessions(of: app)
        #expect(sessions.map(\.kind) == [.implicit])
        #expect(sessions.first?.requirement == .whenInUse)
        #expect(h.core.sessions[sessions[0].id]?.implicitStream == stream)
        #expect(h.prompts(Self.maps).map(\.kind) == [.authorization])
        #expect(h.masks(on: stream) == [[.authorizationRequestInProgress]])
    }

    @Test("S10: MonitorEvents creates an implicit session too")
    func implicitSessionForMonitor() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let stream = h.call(app, .monitorEvents(monitor: "home"))
        #expect(h.sessions(of: app).map(\.kind) == [.implicit])
        #expect(h.masks(on: stream) == [[]])
    }

    @Test("S10: no implicit session while the app holds an explicit session of at least whenInUse")
    func noImplicitBesideExplicit() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let explicit = h.create(app, .whenInUse)!
        h.call(app, .liveUpdates(.standard))
        #expect(h.sessions(of: app).map(\.id) == [explicit])
    }

    @Test("S10: an explicit none session does not stand in for the implicit one")
    func noneDoesNotReplaceImplicit() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        _ = h.create(app, .noAuthorization)!
        h.call(app, .liveUpdates(.standard))
        #expect(h.sessions(of: app).map(\.kind) == [.explicit, .implicit])
    }

    @Test("S10: the implicit session ends with its stream's connection and never lingers")
    func implicitNeverLingers() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let streaming = h.launch(Self.maps)
        let other = h.launch(Self.maps)
        h.call(streaming, .liveUpdates(.standard))
        let implicit = h.sessions(of: streaming)[0].id

        h.disconnect(streaming)
        #expect(h.session(implicit) == nil)
        #expect(h.sessions(of: other).isEmpty)
        #expect(h.core.status().lingeringSessions == 0)
        #expect(h.persisted.allSatisfy { $0.sessionID == nil })  // implicit sessions are never stored
    }

    @Test("S11: an opted-out app gets no implicit session and no prompt; its stream reports serviceSessionRequired")
    func optOut() {
        var h = Harness()
        let app = h.launch(Self.explicit)
        let stream = h.call(app, .liveUpdates(.standard))
        #expect(h.sessions(of: app).isEmpty)
        #expect(h.prompts(Self.explicit).isEmpty)
        #expect(h.masks(on: stream) == [[.serviceSessionRequired]])
    }

    @Test("S11: an explicit whenInUse session lifts serviceSessionRequired")
    func explicitSessionLiftsOptOutFlag() {
        var h = Harness()
        h.set(Self.explicit, .whileUsing)
        let app = h.launch(Self.explicit)
        let stream = h.call(app, .liveUpdates(.standard))
        #expect(h.masks(on: stream).last?.contains(.serviceSessionRequired) == true)
        let id = h.create(app, .whenInUse)!
        #expect(h.masks(on: stream).last?.contains(.serviceSessionRequired) == false)
        h.call(app, .invalidateSession(id.description))
        #expect(h.masks(on: stream).last?.contains(.serviceSessionRequired) == true)
    }

    @Test("S11: a none session lifts serviceSessionRequired only while the app is authorized")
    func noneSessionLiftsFlagWhenAuthorized() {
        var h = Harness()
        let app = h.launch(Self.explicit)
        let stream = h.call(app, .liveUpdates(.standard))
        _ = h.create(app, .noAuthorization)!
        #expect(h.masks(on: stream) == [[.serviceSessionRequired]])

        h.set(Self.explicit, .whileUsing)
        #expect(h.masks(on: stream).last?.contains(.serviceSessionRequired) == false)
    }

    // MARK: S12, S13: background activity

    @Test("S12: BeginBackgroundActivity in the foreground, authorized, with UIBackgroundModes location succeeds")
    func beginBackgroundActivity() {
        var h = Harness()
        h.set(Self.run, .whileUsing)
        let app = h.launch(Self.run)
        let call = h.call(app, .beginBackgroundActivity)
        guard case .session(let view)? = h.reply(to: call) else {
            Issue.record("BeginBackgroundActivity failed: \(h.last)")
            return
        }
        #expect(view.kind == .backgroundActivity)
        #expect(view.requirement == .whenInUse)
        #expect(view.state == .active)

        h.call(app, .setAppState(.background))
        h.advance(60)
        #expect(h.inUse(Self.run))
        #expect(h.state(view.id) == .active)
        #expect(h.core.status().appsUsingLocationInBackground == [Self.run])
    }

    @Test("S12: BeginBackgroundActivity without location in UIBackgroundModes is unavailable")
    func backgroundActivityNeedsBackgroundMode() {
        var h = Harness()
        h.set(Self.maps, .always)
        let app = h.launch(Self.maps)
        let call = h.call(app, .beginBackgroundActivity)
        guard case .backgroundActivityUnavailable(let reason)? = h.error(of: call) else {
            Issue.record("expected BackgroundActivityUnavailable, got \(h.last)")
            return
        }
        #expect(reason.contains("UIBackgroundModes"))
        #expect(h.sessions(of: app).isEmpty)
    }

    @Test("S12: BeginBackgroundActivity in the background is unavailable")
    func backgroundActivityNeedsForeground() {
        var h = Harness()
        h.set(Self.run, .whileUsing)
        let app = h.launch(Self.run)
        h.call(app, .setAppState(.background))
        let call = h.call(app, .beginBackgroundActivity)
        guard case .backgroundActivityUnavailable(let reason)? = h.error(of: call) else {
            Issue.record("expected BackgroundActivityUnavailable, got \(h.last)")
            return
        }
        #expect(reason.contains("foreground"))
        #expect(h.sessions(of: app).isEmpty)
    }

    @Test("S12: BeginBackgroundActivity of an app not authorized is unavailable")
    func backgroundActivityNeedsAuthorization() {
        var h = Harness()
        let app = h.launch(Self.run)
        let call = h.call(app, .beginBackgroundActivity)
        guard case .backgroundActivityUnavailable(let reason)? = h.error(of: call) else {
            Issue.record("expected BackgroundActivityUnavailable, got \(h.last)")
            return
        }
        #expect(reason.contains("not authorized"))
        #expect(h.sessions(of: app).isEmpty)
        #expect(h.prompts(Self.run).isEmpty)
    }

    @Test("S13: a background activity session lingers after its owner closes but keeps nobody in use")
    func backgroundActivityLingers() {
        var h = Harness()
        h.set(Self.run, .whileUsing)
        let owner = h.launch(Self.run)
        let other = h.launch(Self.run)
        let activity = h.beginActivity(owner)!
        h.call(other, .setAppState(.background))
        h.advance(30)
        #expect(h.inUse(Self.run))

        h.disconnect(owner)
        #expect(h.state(activity) == .lingering)
        #expect(h.session(activity)?.requirement == .whenInUse)
        #expect(!h.inUse(Self.run))
        #expect(h.core.status().appsUsingLocationInBackground == [])
        h.advance(10)
        #expect(h.session(activity) == nil)
    }

    @Test("S13: resuming a lingering background activity session puts the app back in use")
    func resumeBackgroundActivity() {
        var h = Harness()
        h.set(Self.run, .whileUsing)
        let owner = h.launch(Self.run, pid: 10)
        let other = h.launch(Self.run, pid: 20)
        let activity = h.beginActivity(owner)!
        h.call(other, .setAppState(.background))
        h.advance(30)
        h.disconnect(owner)
        #expect(!h.inUse(Self.run))

        h.call(other, .resumeSession(activity.description))
        #expect(h.inUse(Self.run))
        #expect(h.state(activity) == .active)
    }

    @Test("S13: a lingering background activity session is covered only by a new background activity session")
    func backgroundActivityCoveredOnlyByActivity() {
        var h = Harness()
        h.set(Self.run, .always)
        let old = h.launch(Self.run)
        let activity = h.beginActivity(old)!
        h.disconnect(old)
        let new = h.launch(Self.run)

        _ = h.create(new, .always)!
        _ = h.create(new, .whenInUse)!
        #expect(h.state(activity) == .lingering)
        let replacement = h.beginActivity(new)!
        #expect(h.session(activity) == nil)
        #expect(h.state(replacement) == .active)
    }

    @Test("S13: a background activity session does not cover a lingering explicit one")
    func backgroundActivityDoesNotCoverExplicit() {
        var h = Harness()
        h.set(Self.run, .whileUsing)
        let old = h.launch(Self.run)
        let explicit = h.create(old, .whenInUse)!
        h.disconnect(old)
        let new = h.launch(Self.run)
        _ = h.beginActivity(new)!
        #expect(h.state(explicit) == .lingering)
    }

    // MARK: S14: ResumeSession

    @Test("S14: ResumeSession makes the caller the owner of a lingering session and clears its deadline")
    func resumeTakesOver() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let old = h.launch(Self.maps, pid: 10)
        let id = h.create(old, .whenInUse)!
        h.disconnect(old)
        h.advance(4)
        let new = h.launch(Self.maps, pid: 20)

        let call = h.call(new, .resumeSession(id.description))
        guard case .session(let view)? = h.reply(to: call) else {
            Issue.record("ResumeSession failed: \(h.last)")
            return
        }
        #expect(view.id == id)
        #expect(view.state == .active)
        #expect(view.deadline == nil)
        #expect(view.remaining == nil)
        #expect(h.core.sessions[id]?.owner == new)
        let stored = h.persisted.compactMap { if case .session(let s) = $0 { s } else { nil } }
        #expect(stored.map(\.ownerPID) == [20])
        #expect(stored.first?.lingerEnds == nil)

        h.advance(30)
        #expect(h.state(id) == .active)
        h.disconnect(new)  // the new owner closes: a fresh window
        #expect(h.session(id)?.deadline == h.now.adding(.seconds(10)))
    }

    @Test("S14: resuming a session the caller already owns returns it unchanged")
    func resumeOwnSession() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse)!
        let before = h.session(id)!
        let call = h.call(app, .resumeSession(id.description))
        #expect(h.reply(to: call) == .session(before))
        #expect(h.persisted.isEmpty)
        #expect(h.session(id) == before)
    }

    @Test("S14: resuming another client's live session answers NoSuchSession")
    func resumeOthersLiveSession() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let owner = h.launch(Self.maps)
        let thief = h.launch(Self.maps)
        let id = h.create(owner, .whenInUse)!
        let call = h.call(thief, .resumeSession(id.description))
        #expect(h.error(of: call) == .noSuchSession(id: id.description))
        #expect(h.core.sessions[id]?.owner == owner)
    }

    @Test("S14: resuming another app's session, even a lingering one, answers NoSuchSession")
    func resumeOtherAppsSession() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let owner = h.launch(Self.maps)
        let id = h.create(owner, .whenInUse)!
        h.disconnect(owner)
        let stranger = h.launch(Self.run)

        let call = h.call(stranger, .resumeSession(id.description))
        #expect(h.error(of: call) == .noSuchSession(id: id.description))
        #expect(h.state(id) == .lingering)
        let invalidate = h.call(stranger, .invalidateSession(id.description))
        #expect(h.error(of: invalidate) == .noSuchSession(id: id.description))
        #expect(h.state(id) == .lingering)
    }

    @Test("S14: resuming a session asks again for a prompt that was dismissed (§5.2)")
    func resumeLiftsSuppression() {
        var h = Harness()
        let old = h.launch(Self.maps)
        let new = h.launch(Self.maps)
        let id = h.create(old, .whenInUse)!
        h.advance(120)  // P8: dismissed, and not raised again until asked
        h.disconnect(old)
        #expect(h.prompts(Self.maps).isEmpty)

        h.call(new, .resumeSession(id.description))
        #expect(h.prompts(Self.maps).map(\.kind) == [.authorization])
        #expect(h.mask(id) == [.authorizationRequestInProgress])
    }
}

extension Harness {
    /// Lists the sessions of the caller's app.
    fileprivate mutating func sessions(of client: ClientID) -> [SessionView] {
        let call = call(client, .listSessions)
        guard case .sessions(let views)? = reply(to: call) else { return [] }
        return views
    }

    /// Begins a background activity session; `nil` if it was unavailable.
    fileprivate mutating func beginActivity(_ client: ClientID) -> SessionID? {
        let call = call(client, .beginBackgroundActivity)
        guard case .session(let view)? = reply(to: call) else { return nil }
        return view.id
    }
}

extension Persist {
    /// The session a session write is about.
    fileprivate var sessionID: SessionID? {
        switch self {
        case .session(let snapshot): snapshot.id
        case .sessionRemoved(_, let id): id
        default: nil
        }
    }
}
