import LocationTestSupport
import Testing

@testable import LocationCore

/// SEMANTICS §7: the diagnostic flags of sessions and streams, how they are sent, and active/limited.
@Suite("Diagnostics")
struct DiagnosticTests {
    // MARK: D1 denial

    @Test("D1: turning location services off sets authorizationDenied and authorizationDeniedGlobally together")
    func servicesOffSetsBothBits() throws {
        var h = Harness()
        let (_, session) = try h.launchAnswered("com.ex.maps")
        h.send(.fix(Harness.here))
        let updates = h.openStream("com.ex.maps", .liveUpdates(.standard))
        let monitor = h.openStream("com.ex.maps", .monitorEvents(monitor: "home"))
        #expect(h.lastMask(on: updates) == [])
        #expect(h.lastMask(on: monitor) == [])
        let admin = h.connect()

        h.call(admin, .setLocationServices(false))

        let denied: DiagnosticMask = [.authorizationDenied, .authorizationDeniedGlobally]
        #expect(h.mask(session) == denied)
        #expect(h.state(session) == .limited)
        #expect(h.lastMask(on: updates) == denied)
        #expect(h.lastMask(on: monitor) == denied)
        #expect(h.status("com.ex.maps") == .authorizedWhenInUse, "the record itself is untouched")

        h.call(admin, .setLocationServices(true))

        #expect(h.mask(session) == [])
        #expect(h.lastMask(on: updates) == [])
        #expect(h.lastMask(on: monitor) == [])
    }

    @Test("D1: a denied status sets authorizationDenied alone")
    func deniedStatusSetsDenied() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let session = try h.created(app, .whenInUse)
        try #require(h.answer("com.ex.maps", .deny) == nil)
        h.send(.fix(Harness.here))

        let updates = h.openStream("com.ex.maps", .liveUpdates(.standard))
        let monitor = h.openStream("com.ex.maps", .monitorEvents(monitor: "home"))

        #expect(h.mask(session) == [.authorizationDenied])
        #expect(h.lastMask(on: updates) == [.authorizationDenied])
        #expect(h.lastMask(on: monitor) == [.authorizationDenied])
    }

    // MARK: D2 restriction

    @Test("D2: a restricted app reports authorizationRestricted on sessions and streams, and is never asked")
    func restrictedApp() throws {
        var h = Harness(configuration: CoreConfiguration(restrictedApps: ["com.ex.maps"]))
        h.send(.fix(Harness.here))
        let app = h.launch("com.ex.maps")
        let session = try h.created(app, .whenInUse)
        let updates = h.openStream("com.ex.maps", .liveUpdates(.standard))
        let monitor = h.openStream("com.ex.maps", .monitorEvents(monitor: "home"))

        #expect(h.mask(session) == [.authorizationRestricted])
        #expect(h.lastMask(on: updates) == [.authorizationRestricted])
        #expect(h.lastMask(on: monitor) == [.authorizationRestricted])
        #expect(h.prompts("com.ex.maps").isEmpty)
    }

    @Test("D2: a restricted app with location services off reports three flags at once")
    func restrictedAndServicesOff() throws {
        var h = Harness(configuration: CoreConfiguration(restrictedApps: ["com.ex.maps"]))
        let app = h.launch("com.ex.maps")
        let session = try h.created(app, .whenInUse)
        let admin = h.connect()

        h.call(admin, .setLocationServices(false))

        #expect(h.mask(session) == [.authorizationDenied, .authorizationDeniedGlobally, .authorizationRestricted])
    }

    // MARK: D3 request in progress

    @Test("D3: a pending authorization prompt sets authorizationRequestInProgress on every session and stream")
    func authorizationPromptInProgress() throws {
        var h = Harness()
        h.send(.fix(Harness.here))
        let app = h.launch("com.ex.maps")
        let whenInUse = try h.created(app, .whenInUse)
        let none = try h.created(app, .noAuthorization)
        let updates = h.openStream("com.ex.maps", .liveUpdates(.standard))
        let monitor = h.openStream("com.ex.maps", .monitorEvents(monitor: "home"))
        try #require(h.prompts("com.ex.maps").map(\.kind) == [.authorization])

        #expect(h.mask(whenInUse) == [.authorizationRequestInProgress])
        #expect(h.mask(none) == [.authorizationRequestInProgress])
        #expect(h.lastMask(on: updates) == [.authorizationRequestInProgress])
        #expect(h.lastMask(on: monitor) == [.authorizationRequestInProgress])

        #expect(h.answer("com.ex.maps", .allowWhileUsing) == nil)

        #expect(h.mask(whenInUse) == [])
        #expect(h.mask(none) == [])
        #expect(h.lastMask(on: updates) == [])
        #expect(h.lastMask(on: monitor) == [])
    }

    @Test("D3: a pending upgrade prompt sets authorizationRequestInProgress only where R is always")
    func upgradePromptInProgress() throws {
        var h = Harness()
        h.send(.fix(Harness.here))
        let (app, whenInUse) = try h.launchAnswered("com.ex.maps")
        let updates = h.openStream("com.ex.maps", .liveUpdates(.standard))
        #expect(h.lastMask(on: updates) == [])

        let always = try h.created(app, .always)
        try #require(h.prompts("com.ex.maps").map(\.kind) == [.alwaysUpgrade])

        #expect(h.mask(always) == [.authorizationRequestInProgress])
        #expect(h.mask(whenInUse) == [])
        #expect(h.lastMask(on: updates) == [.authorizationRequestInProgress], "a stream's R is the app's always")
    }

    @Test("D3: a pending upgrade prompt for a provisional grant sets nothing: the grant already works as Always")
    func provisionalUpgradeNotInProgress() throws {
        var h = Harness()
        h.send(.fix(Harness.here))
        let app = h.launch("com.ex.maps")
        let always = try h.created(app, .always)
        try #require(h.answer("com.ex.maps", .allowWhileUsing) == nil)
        let updates = h.openStream("com.ex.maps", .liveUpdates(.standard))
        h.call(app, .setAppState(.background))
        h.advance(10)
        try #require(h.prompts("com.ex.maps").map(\.kind) == [.alwaysUpgrade])

        #expect(h.mask(always) == [])
        #expect(h.lastMask(on: updates) == [])
    }

    @Test("D3: a pending accuracy prompt sets it on sessions with that purpose key and on every stream")
    func accuracyPromptInProgress() throws {
        var h = Harness()
        h.send(.fix(Harness.here))
        let (app, plain) = try h.launchAnswered("com.ex.maps", accuracy: .reduced)
        let updates = h.openStream("com.ex.maps", .liveUpdates(.standard))
        let monitor = h.openStream("com.ex.maps", .monitorEvents(monitor: "home"))

        let navigation = try h.created(app, .whenInUse, purposeKey: "Navigation")
        try #require(h.prompts("com.ex.maps").map(\.kind) == [.temporaryFullAccuracy])

        #expect(h.mask(navigation) == [.authorizationRequestInProgress])
        #expect(h.mask(plain) == [])
        #expect(h.lastMask(on: updates) == [.accuracyLimited, .authorizationRequestInProgress])
        #expect(h.lastMask(on: monitor) == [.accuracyLimited, .authorizationRequestInProgress])
    }

    // MARK: D4 insufficiently in use

    @Test("D4: a session of an app launched in the background reports insufficientlyInUse and raises no prompt")
    func launchedInBackground() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps", state: .background)
        let whenInUse = try h.created(app, .whenInUse)
        let none = try h.created(app, .noAuthorization)
        let updates = h.openStream("com.ex.maps", .liveUpdates(.standard))

        #expect(h.mask(whenInUse) == [.insufficientlyInUse])
        #expect(h.mask(none) == [], "R = none never needs use")
        #expect(h.lastMask(on: updates) == [.insufficientlyInUse])
        #expect(h.prompts("com.ex.maps").isEmpty)
    }

    @Test("D4: insufficientlyInUse appears when the background grace ends and goes in the foreground")
    func insufficientlyInUseAfterGrace() throws {
        var h = Harness()
        let (app, session) = try h.launchAnswered("com.ex.maps")

        h.call(app, .setAppState(.background))
        h.advance(9.9)
        #expect(h.mask(session) == [])
        h.advance(0.1)
        #expect(h.mask(session) == [.insufficientlyInUse])
        #expect(h.state(session) == .limited)

        h.call(app, .setAppState(.foreground))
        #expect(h.mask(session) == [])
        #expect(h.state(session) == .active)
    }

    @Test("D4: an always session of an authorizedAlways app is not insufficiently in use in the background")
    func alwaysExempt() throws {
        var h = Harness()
        h.send(.fix(Harness.here))
        let app = h.launch("com.ex.maps")
        h.set("com.ex.maps", .always)
        let always = try h.created(app, .always)
        let whenInUse = try h.created(app, .whenInUse)
        let updates = h.openStream("com.ex.maps", .liveUpdates(.standard))

        h.call(app, .setAppState(.background))
        h.advance(10)

        #expect(h.mask(always) == [])
        #expect(h.mask(whenInUse) == [.insufficientlyInUse])
        #expect(h.lastMask(on: updates) == [], "the stream's R is the app's always")
    }

    @Test("D4: a denied app, or location services off, reports denial instead of insufficientlyInUse")
    func denialReplacesInsufficientlyInUse() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let session = try h.created(app, .whenInUse)
        try #require(h.answer("com.ex.maps", .deny) == nil)
        h.call(app, .setAppState(.background))
        h.advance(10)
        #expect(h.mask(session) == [.authorizationDenied])

        h.set("com.ex.maps", .whileUsing)
        #expect(h.mask(session) == [.insufficientlyInUse])
        let admin = h.connect()
        h.call(admin, .setLocationServices(false))

        #expect(h.mask(session) == [.authorizationDenied, .authorizationDeniedGlobally])
    }

    @Test("D4: for monitor events authorizedAlways is enough whatever R; live updates still need use")
    func monitorExemptForAlways() throws {
        var h = Harness()
        h.send(.fix(Harness.here))
        let app = h.launch("com.ex.maps")
        h.set("com.ex.maps", .always)
        let updates = h.openStream("com.ex.maps", .liveUpdates(.standard))
        let monitor = h.openStream("com.ex.maps", .monitorEvents(monitor: "home"))

        h.call(app, .setAppState(.background))
        h.advance(10)

        #expect(h.lastMask(on: monitor) == [])
        #expect(h.lastMask(on: updates) == [.insufficientlyInUse])
    }

    // MARK: D5 Always declined

    @Test("D5: an always session reports alwaysAuthorizationDenied once the upgrade is declined")
    func alwaysDeclined() throws {
        var h = Harness()
        h.send(.fix(Harness.here))
        let (app, whenInUse) = try h.launchAnswered("com.ex.maps")
        let always = try h.created(app, .always)
        let updates = h.openStream("com.ex.maps", .liveUpdates(.standard))

        #expect(h.answer("com.ex.maps", .keepWhileUsing) == nil)

        #expect(h.mask(always) == [.alwaysAuthorizationDenied])
        #expect(h.mask(whenInUse) == [])
        #expect(h.lastMask(on: updates) == [], "updates do not carry alwaysAuthorizationDenied")
    }

    @Test("D5: an always session reports alwaysAuthorizationDenied for a one-time grant")
    func alwaysDeniedForOneTime() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let always = try h.created(app, .always)

        #expect(h.answer("com.ex.maps", .allowOnce) == nil)

        #expect(h.mask(always) == [.alwaysAuthorizationDenied])
    }

    @Test("D5: an admin's While Using declines Always for the app's always sessions")
    func alwaysDeniedByAdmin() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let always = try h.created(app, .always)
        try #require(h.mask(always) == [.authorizationRequestInProgress])

        h.set("com.ex.maps", .whileUsing)

        #expect(h.mask(always) == [.alwaysAuthorizationDenied])
        #expect(h.prompts("com.ex.maps").isEmpty)
    }

    // MARK: D6 full accuracy denied

    @Test("D6: a purpose-key session reports fullAccuracyDenied when the grant was never asked for")
    func fullAccuracyNeverAsked() throws {
        var h = Harness()
        let (app, _) = try h.launchAnswered("com.ex.maps", accuracy: .reduced)
        h.call(app, .setAppState(.background))

        let navigation = try h.created(app, .whenInUse, purposeKey: "Navigation")

        #expect(h.prompts("com.ex.maps").isEmpty, "no accuracy prompt in the background")
        #expect(h.mask(navigation) == [.fullAccuracyDenied])
        #expect(h.state(navigation) == .limited)
    }

    @Test("D6: a purpose-key session reports fullAccuracyDenied after its accuracy prompt was dismissed")
    func fullAccuracyDismissed() throws {
        var h = Harness()
        let (app, _) = try h.launchAnswered("com.ex.maps", accuracy: .reduced)
        let navigation = try h.created(app, .whenInUse, purposeKey: "Navigation")
        try #require(h.mask(navigation) == [.authorizationRequestInProgress])

        h.advance(120)

        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.mask(navigation) == [.fullAccuracyDenied])
    }

    @Test("D6: a purpose-key session reports fullAccuracyDenied when its temporary grant ends")
    func fullAccuracyGrantEnded() throws {
        var h = Harness()
        let (app, _) = try h.launchAnswered("com.ex.maps", accuracy: .reduced)
        let navigation = try h.created(app, .whenInUse, purposeKey: "Navigation")
        try #require(h.answer("com.ex.maps", .allow) == nil)
        #expect(h.mask(navigation) == [])

        h.call(app, .setAppState(.background))
        h.advance(10)

        #expect(h.mask(navigation) == [.insufficientlyInUse, .fullAccuracyDenied])
    }

    @Test("D6: no fullAccuracyDenied with full accuracy, without a purpose key, or before authorization")
    func fullAccuracyNotDenied() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let early = try h.created(app, .whenInUse, purposeKey: "Navigation")
        #expect(h.mask(early) == [.authorizationRequestInProgress], "not authorized yet: only the request")
        try #require(h.answer("com.ex.maps", .allowWhileUsing, accuracy: .full) == nil)

        let plain = try h.created(app, .whenInUse)
        #expect(h.mask(early) == [])
        #expect(h.mask(plain) == [])
        #expect(h.prompts("com.ex.maps").isEmpty)
    }

    // MARK: D7 service session required

    @Test("D7: an opted-out app's streams report serviceSessionRequired until it holds an explicit session")
    func serviceSessionRequired() throws {
        var h = Harness()
        h.send(.fix(Harness.here))
        let app = h.launch("com.ex.explicit")
        h.set("com.ex.explicit", .whileUsing)
        let updates = h.openStream("com.ex.explicit", .liveUpdates(.standard))
        let monitor = h.openStream("com.ex.explicit", .monitorEvents(monitor: "home"))

        #expect(h.lastMask(on: updates) == [.serviceSessionRequired])
        #expect(h.lastMask(on: monitor) == [.serviceSessionRequired])
        #expect(h.core.sessionViews(of: AppKey.noUser("com.ex.explicit")).isEmpty, "no implicit session")

        let session = try h.created(app, .whenInUse)
        #expect(h.mask(session) == [])
        #expect(h.lastMask(on: updates) == [])
        #expect(h.lastMask(on: monitor) == [])

        h.call(app, .invalidateSession(session.description))
        #expect(h.lastMask(on: updates) == [.serviceSessionRequired])
        #expect(h.lastMask(on: monitor) == [.serviceSessionRequired])
    }

    @Test("D7: a none session satisfies an opted-out app's streams only while the app is authorized")
    func noneSessionNeedsAuthorization() throws {
        var h = Harness()
        h.send(.fix(Harness.here))
        let app = h.launch("com.ex.explicit")
        let none = try h.created(app, .noAuthorization)
        let updates = h.openStream("com.ex.explicit", .liveUpdates(.standard))
        #expect(h.lastMask(on: updates) == [.serviceSessionRequired])
        #expect(h.prompts("com.ex.explicit").isEmpty, "an opted-out app's stream raises no prompt")

        h.set("com.ex.explicit", .whileUsing)

        #expect(h.lastMask(on: updates) == [])
        #expect(h.mask(none) == [])
    }

    @Test("D7: an app that is not opted out never reports serviceSessionRequired")
    func notOptedOut() throws {
        var h = Harness()
        h.send(.fix(Harness.here))
        _ = h.launch("com.ex.maps")
        h.set("com.ex.maps", .whileUsing)

        let updates = h.openStream("com.ex.maps", .liveUpdates(.standard))

        #expect(h.lastMask(on: updates) == [])
        #expect(h.core.sessionViews(of: AppKey.noUser("com.ex.maps")).map(\.kind) == [.implicit])
    }

    @Test("D7: a background activity session of an opted-out app reports serviceSessionRequired until one exists")
    func backgroundActivityNeedsServiceSession() throws {
        var h = Harness(Harness.defaultManifests + [DiagnosticTests.explicitRunner])
        let app = h.launch("com.ex.explicitrun")
        h.set("com.ex.explicitrun", .whileUsing)
        let begin = h.call(app, .beginBackgroundActivity)
        guard case .session(let activity)? = h.reply(to: begin) else {
            Issue.record("BeginBackgroundActivity failed: \(String(describing: h.error(of: begin)))")
            return
        }
        #expect(activity.diagnostic == [.serviceSessionRequired])
        #expect(activity.state == .limited)

        _ = try h.created(app, .whenInUse)

        #expect(h.mask(activity.id) == [])
        #expect(h.state(activity.id) == .active)
    }

    // MARK: D8 accuracy limited

    @Test("D8: reduced accuracy sets accuracyLimited on update and monitor streams, never on sessions")
    func accuracyLimited() throws {
        var h = Harness()
        h.send(.fix(Harness.here))
        let (_, session) = try h.launchAnswered("com.ex.approx")
        let updates = h.openStream("com.ex.approx", .liveUpdates(.standard))
        let monitor = h.openStream("com.ex.approx", .monitorEvents(monitor: "home"))

        #expect(h.mask(session) == [])
        #expect(h.state(session) == .active)
        #expect(h.lastMask(on: updates) == [.accuracyLimited])
        #expect(h.lastMask(on: monitor) == [.accuracyLimited])
    }

    @Test("D8: a temporary full-accuracy grant lifts accuracyLimited")
    func temporaryGrantLiftsAccuracyLimited() throws {
        var h = Harness()
        h.send(.fix(Harness.here))
        let (app, _) = try h.launchAnswered("com.ex.approx")
        let updates = h.openStream("com.ex.approx", .liveUpdates(.standard))
        h.call(app, .requestTemporaryFullAccuracy(purposeKey: "Radar"))
        #expect(h.lastMask(on: updates) == [.accuracyLimited, .authorizationRequestInProgress])

        try #require(h.answer("com.ex.approx", .allow) == nil)

        #expect(h.lastMask(on: updates) == [])
        #expect(h.masks(on: updates) == [[.accuracyLimited], [.accuracyLimited, .authorizationRequestInProgress], []])
    }

    // MARK: D9 location unavailable

    @Test("D9: an authorized app in use with no fix reports locationUnavailable on updates only")
    func locationUnavailable() throws {
        var h = Harness()
        let (_, session) = try h.launchAnswered("com.ex.maps")
        let updates = h.openStream("com.ex.maps", .liveUpdates(.standard))
        let monitor = h.openStream("com.ex.maps", .monitorEvents(monitor: "home"))

        #expect(h.lastMask(on: updates) == [.locationUnavailable])
        #expect(h.lastMask(on: monitor) == [])
        #expect(h.mask(session) == [])

        h.send(.fix(Harness.here))
        #expect(h.lastMask(on: updates) == [])
        h.send(.fixLost)
        #expect(h.lastMask(on: updates) == [.locationUnavailable])
    }

    @Test("D9: without a fix, an app not authorized or not in use reports why, not locationUnavailable")
    func locationUnavailableNeedsAuthorizationAndUse() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let updates = h.openStream("com.ex.maps", .liveUpdates(.standard))
        #expect(h.lastMask(on: updates) == [.authorizationRequestInProgress])
        try #require(h.answer("com.ex.maps", .allowWhileUsing) == nil)
        #expect(h.lastMask(on: updates) == [.locationUnavailable])

        h.call(app, .setAppState(.background))
        h.advance(10)

        #expect(h.lastMask(on: updates) == [.insufficientlyInUse])
    }

    @Test("D9: an Always app with an always session reports locationUnavailable in the background")
    func locationUnavailableForAlways() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        h.set("com.ex.maps", .always)
        _ = try h.created(app, .always)
        let updates = h.openStream("com.ex.maps", .liveUpdates(.standard))

        h.call(app, .setAppState(.background))
        h.advance(10)

        #expect(h.inUse("com.ex.maps") == false)
        #expect(h.lastMask(on: updates) == [.locationUnavailable])
    }

    // MARK: D10 stationary

    @Test("D10: fixes that stay put for 60 s set stationary on updates only, until movement resumes")
    func stationary() throws {
        var h = Harness()
        let (_, session) = try h.launchAnswered("com.ex.maps")
        h.send(.fix(Harness.here))
        let updates = h.openStream("com.ex.maps", .liveUpdates(.standard))
        let monitor = h.openStream("com.ex.maps", .monitorEvents(monitor: "home"))
        #expect(h.lastMask(on: updates) == [])

        h.advance(60)
        #expect(h.lastMask(on: updates) == [.stationary])
        #expect(h.lastMask(on: monitor) == [])
        #expect(h.mask(session) == [])

        h.send(.fix(Harness.here.moved(north: 50)))
        #expect(h.lastMask(on: updates) == [])
    }

    // MARK: D11 diagnostics streams

    @Test("D11: a diagnostics stream sends the current mask at once")
    func diagnosticsStreamStartsWithCurrentMask() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let session = try h.created(app, .whenInUse)

        let stream = h.openStream("com.ex.maps", .sessionDiagnostics(session.description))

        #expect(h.messages(to: stream) == [.diagnostic([.authorizationRequestInProgress], ended: false)])
    }

    @Test("D11: a diagnostics stream sends one reply per change and never the same mask twice in a row")
    func diagnosticsStreamChangesOnly() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let session = try h.created(app, .whenInUse)
        let stream = h.openStream("com.ex.maps", .sessionDiagnostics(session.description))
        let admin = h.connect()

        try #require(h.answer("com.ex.maps", .allowWhileUsing) == nil)
        // Nothing below changes this session's mask until the grace ends.
        h.send(.fix(Harness.here))
        _ = try h.created(app, .always)
        h.call(app, .setAppState(.background))
        h.advance(5)
        #expect(h.messages(to: stream).isEmpty)
        h.advance(5)
        h.call(app, .setAppState(.foreground))
        h.call(admin, .setLocationServices(false))
        h.call(admin, .setLocationServices(false))
        h.call(admin, .setLocationServices(true))

        let masks = h.masks(on: stream)
        #expect(
            masks == [
                [.authorizationRequestInProgress], [], [.insufficientlyInUse], [],
                [.authorizationDenied, .authorizationDeniedGlobally], [],
            ]
        )
        #expect(zip(masks, masks.dropFirst()).allSatisfy { $0 != $1 })
    }

    @Test("D11: a change of active/limited with the same mask sends nothing on the diagnostics stream")
    func stateChangeWithoutMaskChange() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let session = try h.created(app, .whenInUse)
        h.advance(120)
        let stream = h.openStream("com.ex.maps", .sessionDiagnostics(session.description))
        #expect(h.state(session) == .limited)
        let button = h.connect()

        h.call(button, .locationButton(appID: "com.ex.maps", user: nil))

        #expect(h.state(session) == .active)
        #expect(h.masks(on: stream) == [[]])
    }

    @Test("D11: the final reply of a diagnostics stream has ended = true and may repeat the mask")
    func diagnosticsStreamFinalReply() throws {
        var h = Harness()
        let (app, session) = try h.launchAnswered("com.ex.maps")
        let stream = h.openStream("com.ex.maps", .sessionDiagnostics(session.description))

        h.call(app, .invalidateSession(session.description))

        #expect(h.ended(stream))
        #expect(h.messages(to: stream, inLast: false) == [.diagnostic([], ended: false), .diagnostic([], ended: true)])

        let admin = h.connect()
        h.call(admin, .setLocationServices(false))
        #expect(h.messages(to: stream).isEmpty, "nothing after the final reply")
    }

    @Test("D11: a diagnostics stream ends with a final reply when its lingering session expires")
    func diagnosticsStreamEndsWithLingering() throws {
        var h = Harness()
        let (app, session) = try h.launchAnswered("com.ex.maps")
        let stream = h.openStream("com.ex.maps", .sessionDiagnostics(session.description))

        h.disconnect(app)
        #expect(h.state(session) == .lingering)
        #expect(h.ended(stream) == false)
        h.advance(10)

        #expect(h.ended(stream))
        let final = try #require(h.messages(to: stream).last)
        guard case .diagnostic(_, let ended) = final else {
            Issue.record("expected a diagnostic, got \(final)")
            return
        }
        #expect(ended)
    }

    // MARK: D12 active and limited

    @Test("D12: a session is active when the app is authorized and no limiting flag is set")
    func activeWhenAuthorized() throws {
        var h = Harness()
        let (app, session) = try h.launchAnswered("com.ex.maps")

        #expect(h.mask(session) == [])
        #expect(h.state(session) == .active)
        let list = h.call(app, .listSessions)
        guard case .sessions(let views)? = h.reply(to: list) else {
            Issue.record("ListSessions failed")
            return
        }
        #expect(views.map(\.state) == [.active])
        #expect(views.map(\.diagnostic) == [[]])
    }

    @Test("D12: a none session is active without any authorization")
    func noneSessionActive() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")

        let none = try h.created(app, .noAuthorization)

        #expect(h.status("com.ex.maps") == .notDetermined)
        #expect(h.mask(none) == [])
        #expect(h.state(none) == .active)
    }

    @Test("D12: flags outside bits 0, 1, 2, 4, 11, 12 and 13 leave a session active")
    func nonLimitingFlagsKeepActive() throws {
        var h = Harness()
        let (app, _) = try h.launchAnswered("com.ex.maps")
        let always = try h.created(app, .always)
        try #require(h.answer("com.ex.maps", .keepWhileUsing) == nil)

        #expect(h.mask(always) == [.alwaysAuthorizationDenied])
        #expect(h.state(always) == .active)
    }

    @Test("D12: an empty mask on a limited session means not yet asked, as after a dismissed prompt")
    func emptyMaskLimitedMeansNotAsked() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let session = try h.created(app, .whenInUse)
        #expect(h.state(session) == .limited)
        #expect(h.mask(session) == [.authorizationRequestInProgress])

        h.advance(120)

        #expect(h.status("com.ex.maps") == .notDetermined)
        #expect(h.mask(session) == [])
        #expect(h.state(session) == .limited)
    }

    /// An opted-out app that may use location in the background.
    static let explicitRunner = Manifest(
        appID: "com.ex.explicitrun",
        whenInUseUsageDescription: "Records runs, explicitly",
        requireExplicitServiceSession: true,
        backgroundLocation: true
    )
}

extension Harness {
    /// Launches `appID` in the foreground and authorizes it when in use through its first prompt.
    ///
    /// Returns the client and the `whenInUse` session that asked; `alwaysDecision` stays `undecided`.
    fileprivate mutating func launchAnswered(
        _ appID: String,
        accuracy: PromptAccuracy = .full
    ) throws -> (ClientID, SessionID) {
        let app = launch(appID)
        let session = try created(app, .whenInUse)
        try #require(answer(appID, .allowWhileUsing, accuracy: accuracy) == nil)
        return (app, session)
    }

    /// Opens a stream of `appID` on a connection of its own, as the protocol asks, and returns it.
    fileprivate mutating func openStream(_ appID: String, _ method: Call) -> CallID {
        let client = launch(appID)
        return call(client, method)
    }

    /// The mask a stream reported last.
    fileprivate func lastMask(on stream: CallID) -> DiagnosticMask? {
        masks(on: stream).last
    }

    /// Creates a session and returns its id; the test stops if `CreateSession` failed.
    fileprivate mutating func created(
        _ client: ClientID,
        _ requirement: Requirement,
        purposeKey: String? = nil
    ) throws -> SessionID {
        let id = create(client, requirement, purposeKey: purposeKey)
        return try #require(id, "CreateSession failed: \(String(describing: last))")
    }
}
