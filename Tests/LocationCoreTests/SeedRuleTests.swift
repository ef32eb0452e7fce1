import LocationTestSupport
import LocationWireErrors
import Testing

@testable import LocationCore

/// Rules taken from the seed articles where locd used to differ from them: the background indicator (S12),
/// the location button without a usage description (P11), the re-confirmation of Always (P12, P13), voluntary
/// reduced accuracy (U5), a process and its own lingering sessions (L8) and the iOS 8 Always key (S2).
@Suite("Seed rules")
struct SeedRuleTests {
    static let maps = "com.ex.maps"
    static let run = "com.ex.run"
    static let bare = "com.ex.bare"

    // MARK: S12: the indicator is for While-Using grants

    @Test("S12: the background indicator lists only apps using location under a While-Using grant, not Always")
    func indicatorIsForWhileUsing() throws {
        var h = Harness()
        // com.ex.run: authorized Always, using location in the background.
        h.set(Self.run, .always)
        let run = h.launch(Self.run)
        _ = try h.created(run, .always)
        h.call(run, .setAppState(.background))
        // com.ex.maps: a provisional Always (While Using chosen after an Always request).
        let maps = h.launch(Self.maps)
        _ = try h.created(maps, .always)
        try #require(h.answer(Self.maps, .allowWhileUsing) == nil)
        #expect(h.authorization(Self.maps).provisional)
        h.call(maps, .setAppState(.background))
        h.advance(60)

        let status = h.core.status()
        #expect(status.appsUsingLocation == [Self.maps, Self.run], "every app using location, Always included")
        #expect(status.appsUsingLocationInBackground == [Self.maps], "Always shows no indicator (seed 004)")
        let views = h.core.appViews()
        #expect(views.first { $0.appID == Self.run }?.usingLocationInBackground == false)
        #expect(views.first { $0.appID == Self.maps }?.usingLocationInBackground == true)

        // The same app under While Using with a background activity session shows it.
        h.call(run, .setAppState(.foreground))
        h.set(Self.run, .whileUsing)
        let activity = h.call(run, .beginBackgroundActivity)
        try #require(h.reply(to: activity) != nil)
        h.call(run, .setAppState(.background))
        h.advance(60)
        #expect(h.core.status().appsUsingLocationInBackground == [Self.maps, Self.run])
    }

    // MARK: P11: a location button needs no usage description

    @Test("P11: a location button's grant serves sessions and updates of an app with no usage description")
    func locationButtonNeedsNoDescription() throws {
        var h = Harness()
        h.send(.fix(Harness.here))
        let app = h.launch(Self.bare)
        let refused = h.call(app, .createSession(.whenInUse, purposeKey: nil))
        #expect(
            h.error(of: refused)
                == .usageDescriptionMissing(key: Manifest.whenInUseKey, manifest: "apps.d/com.ex.bare.toml")
        )

        let admin = h.connect()
        h.call(admin, .locationButton(appID: Self.bare, user: nil))
        #expect(h.authorization(Self.bare).oneTime)
        let session = try h.created(app, .whenInUse)
        #expect(h.state(session) == .active)
        let stream = h.call(app, .liveUpdates(.standard))
        #expect(h.error(of: stream) == nil)
        #expect(h.locations(on: stream) == [Harness.here])

        // Prompts still need a description, and the button grants no more than whenInUse.
        let request = h.call(app, .requestAuthorization(.whenInUse))
        #expect(
            h.error(of: request)
                == .usageDescriptionMissing(key: Manifest.whenInUseKey, manifest: "apps.d/com.ex.bare.toml")
        )
        let always = h.call(app, .createSession(.always, purposeKey: nil))
        #expect(h.error(of: always) != nil)

        // When the grant ends the status is notDetermined; with no description no prompt is raised, and the
        // next session is refused again.
        h.call(app, .setAppState(.background))
        h.advance(10)
        #expect(h.status(Self.bare) == .notDetermined)
        h.call(app, .setAppState(.foreground))
        #expect(h.prompts(Self.bare).isEmpty)
        let after = h.call(app, .createSession(.whenInUse, purposeKey: nil))
        #expect(h.error(of: after) != nil)
        let afterStream = h.call(app, .liveUpdates(.standard))
        #expect(h.error(of: afterStream) != nil)
    }

    // MARK: P12, P13: Always is re-confirmed

    static let hour = CoreConfiguration(alwaysReconfirm: .seconds(3600))

    /// com.ex.run authorized Always, with an always session, in the foreground.
    private func alwaysApp(_ configuration: CoreConfiguration = Self.hour) throws -> (Harness, ClientID, SessionID) {
        var h = Harness(configuration: configuration)
        h.set(Self.run, .always)
        let app = h.launch(Self.run)
        let session = try h.created(app, .always)
        return (h, app, session)
    }

    @Test("P12: background use under Always adds up to always-reconfirm, then one prompt asks to keep Always")
    func reconfirmAfterPeriod() throws {
        var (h, app, _) = try alwaysApp()
        h.call(app, .setAppState(.background))
        h.advance(1800)
        #expect(h.prompts(Self.run).isEmpty)
        // Use in the foreground does not count, and the stretch so far is stored when it stops.
        h.call(app, .setAppState(.foreground))
        #expect(h.persisted.contains(.alwaysUse(AppKey.noUser(Self.run), .seconds(1800))))
        h.advance(7200)
        #expect(h.prompts(Self.run).isEmpty)
        // Back in the background the count goes on from 1800 s.
        h.call(app, .setAppState(.background))
        h.advance(1799)
        #expect(h.prompts(Self.run).isEmpty)
        h.advance(1)
        let prompt = try #require(h.prompts(Self.run).first)
        #expect(prompt.kind == .alwaysReconfirm)
        #expect(prompt.options == [.keepAlways, .changeToWhileUsing])
        #expect(prompt.usageDescription == "Records runs in the background")
        #expect(h.prompts(Self.run).count == 1)
        #expect(h.status(Self.run) == .authorizedAlways, "Always works while the person is asked")

        // Unanswered, it is dismissed (P8) and not raised again in this stretch of use; the next start of use
        // brings it back as soon as the app uses location in the background again.
        h.advance(120)
        #expect(h.prompts(Self.run).isEmpty)
        h.advance(36_000)
        #expect(h.prompts(Self.run).isEmpty)
        h.call(app, .setAppState(.foreground))
        #expect(h.prompts(Self.run).isEmpty)
        h.call(app, .setAppState(.background))
        #expect(h.prompts(Self.run).map(\.kind) == [.alwaysReconfirm])
    }

    @Test("P12: background use of a While-Using grant is not counted until it becomes Always; 0 turns counting off")
    func reconfirmOnlyForAlways() throws {
        var h = Harness(configuration: Self.hour)
        h.set(Self.run, .whileUsing)
        let run = h.launch(Self.run)
        let begin = h.call(run, .beginBackgroundActivity)
        try #require(h.reply(to: begin) != nil)
        h.call(run, .setAppState(.background))
        h.advance(10_000)
        #expect(h.prompts(Self.run).isEmpty)
        // The same use counts from the moment the grant is Always.
        h.set(Self.run, .always)
        h.advance(3599)
        #expect(h.prompts(Self.run).isEmpty)
        h.advance(1)
        #expect(h.prompts(Self.run).map(\.kind) == [.alwaysReconfirm])

        var (off, app, _) = try alwaysApp(CoreConfiguration(alwaysReconfirm: .seconds(0)))
        off.call(app, .setAppState(.background))
        off.advance(1_000_000)
        #expect(off.prompts(Self.run).isEmpty)
        #expect(!off.log.contains { if case .persist(.alwaysUse) = $0 { true } else { false } })
    }

    @Test("P13: keepAlways keeps the record and starts the period over")
    func reconfirmKeep() throws {
        var (h, app, session) = try alwaysApp()
        h.call(app, .setAppState(.background))
        h.advance(3600)
        try #require(h.prompts(Self.run).map(\.kind) == [.alwaysReconfirm])
        try #require(h.answer(Self.run, .keepAlways) == nil)
        #expect(h.prompts(Self.run).isEmpty)
        #expect(h.authorization(Self.run).status == .authorizedAlways)
        #expect(h.authorization(Self.run).settingsLabel == .always)
        #expect(h.persisted.contains(.alwaysUse(AppKey.noUser(Self.run), .seconds(0))))
        #expect(h.state(session) == .active)
        h.advance(3599)
        #expect(h.prompts(Self.run).isEmpty)
        h.advance(1)
        #expect(h.prompts(Self.run).map(\.kind) == [.alwaysReconfirm])
    }

    @Test("P13: changeToWhileUsing makes the record While Using, and the question is not asked again")
    func reconfirmChange() throws {
        var (h, app, session) = try alwaysApp()
        h.call(app, .setAppState(.background))
        h.advance(3600)
        try #require(h.answer(Self.run, .changeToWhileUsing) == nil)
        let record = try #require(h.core.storedRecord(AppKey.noUser(Self.run)))
        #expect(record.status == .authorizedWhenInUse)
        #expect(record.alwaysDecision == .declined)
        #expect(h.authorization(Self.run).settingsLabel == .whileUsing)
        #expect(h.persisted.contains(.record(AppKey.noUser(Self.run), record)))
        #expect(h.mask(session)?.contains(.alwaysAuthorizationDenied) == true)
        h.advance(100_000)
        #expect(h.prompts(Self.run).isEmpty)
    }

    @Test("P12: an app cannot reset the count by quitting, relaunching or crashing between stretches of use")
    func reconfirmCountKeptAcrossRelaunch() throws {
        var (h, app, _) = try alwaysApp()
        var client = app
        // Four stretches of ten minutes in the background, each ended by Goodbye or by a crash (the connection
        // closes with no Goodbye), then a relaunch as a new process.
        for round in 0..<4 {
            h.call(client, .setAppState(.background))
            h.advance(600)
            #expect(h.prompts(Self.run).isEmpty, "round \(round)")
            if round % 2 == 0 { h.call(client, .goodbye) } else { h.disconnect(client) }
            h.advance(30)
            client = h.launch(Self.run, pid: Int32(7000 + round))
            _ = try h.created(client, .always)
        }
        h.call(client, .setAppState(.background))
        h.advance(1199)
        #expect(h.prompts(Self.run).isEmpty)
        h.advance(1)
        #expect(h.prompts(Self.run).map(\.kind) == [.alwaysReconfirm], "2400 s before, 1200 s now")
    }

    @Test("P12: the counted use survives a daemon restart")
    func reconfirmSurvivesRestart() throws {
        var (h, app, _) = try alwaysApp()
        h.call(app, .setAppState(.background))
        h.advance(2400)
        h.call(app, .setAppState(.foreground))
        h.core = LocationCore(
            configuration: h.core.configuration,
            manifests: Harness.defaultManifests,
            restoring: h.core.snapshot,
            epoch: 2,
            at: h.now
        )
        let again = h.launch(Self.run)
        _ = try h.created(again, .always)
        h.call(again, .setAppState(.background))
        h.advance(1199)
        #expect(h.prompts(Self.run).isEmpty)
        h.advance(1)
        #expect(h.prompts(Self.run).map(\.kind) == [.alwaysReconfirm])
    }

    // MARK: U5: voluntary reduced accuracy

    @Test("U5: LiveUpdates with accuracy reduced serves the grid cell under a precise grant, without accuracyLimited")
    func voluntaryReducedAccuracy() throws {
        var h = Harness()
        h.set(Self.maps, .whileUsing, precise: true)
        h.send(.fix(Harness.here))
        let app = h.launch(Self.maps)
        let reduced = h.call(app, .liveUpdates(.standard, accuracy: .reduced))
        let precise = h.call(app, .liveUpdates(.standard))
        let first = try #require(h.messages(to: reduced, inLast: false).first)
        guard case .update(let mask, let location?) = first else {
            Issue.record("expected a location at once, got \(first)")
            return
        }
        #expect(mask == [], "the app chose it: no flag")
        #expect(location.horizontalAccuracy == 5000)
        let cell = GridCell(latitude: Harness.here.latitude, longitude: Harness.here.longitude)
        #expect(location.latitude == cell.centreLatitude && location.longitude == cell.centreLongitude)
        #expect(h.locations(on: precise) == [Harness.here])

        // Throttled and deduplicated as a reduced grant is (U2): a move inside the cell reveals nothing.
        h.now = h.now.adding(.seconds(60))
        let moved = Harness.here.moved(north: 300)
        h.send(.fix(moved))
        #expect(h.messages(to: reduced).isEmpty)
        #expect(h.locations(on: precise).last == moved)
    }

    // MARK: L8 and S2's legacy key

    @Test("L8: after a restart a process's new session leaves its own lingering sessions for it to resume")
    func processKeepsItsOwnAfterRestart() throws {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let old = h.launch(Self.maps, pid: 42)
        let kept = try h.created(old, .whenInUse)
        h.core = LocationCore(
            configuration: h.core.configuration,
            manifests: Harness.defaultManifests,
            restoring: h.core.snapshot,
            epoch: 2,
            at: h.now
        )
        // The client library reconnects its connections; the app creates a session before the library has
        // resumed the old one.
        let first = h.launch(Self.maps, pid: 42)
        let second = h.launch(Self.maps, pid: 42)
        _ = try h.created(first, .whenInUse)
        #expect(h.state(kept) == .lingering)
        let resume = h.call(second, .resumeSession(kept.description))
        #expect(h.error(of: resume) == nil)
        #expect(h.state(kept) == .active)
    }

    @Test("S2: an app with only the iOS 8 NSLocationAlwaysUsageDescription is told the key that replaced it")
    func legacyAlwaysKey() throws {
        let ios8 = Manifest(
            appID: "com.ex.ios8",
            whenInUseUsageDescription: "Shows you on the map",
            legacyAlwaysUsageDescription: true
        )
        var h = Harness(Harness.defaultManifests + [ios8])
        let app = h.launch("com.ex.ios8")
        for method in [Call.createSession(.always, purposeKey: nil), .requestAuthorization(.always)] {
            let call = h.call(app, method)
            let error = try #require(h.error(of: call))
            #expect(error.wireName == "io.locd.App.UsageDescriptionMissing")
            #expect(error.wireError == .usageDescriptionMissing(key: Manifest.alwaysKey))
            #expect(error.message.contains(Manifest.legacyAlwaysKey))
            #expect(error.message.contains("use \(Manifest.alwaysKey)"))
        }
        // Without the old key the message stays as it was.
        let maps = h.launch(Self.bare)
        let call = h.call(maps, .createSession(.always, purposeKey: nil))
        #expect(h.error(of: call)?.message.contains(Manifest.legacyAlwaysKey) == false)
    }
}

extension Harness {
    /// Creates a session and returns its id; a refused call fails the test instead of trapping.
    fileprivate mutating func created(_ client: ClientID, _ requirement: Requirement) throws -> SessionID {
        let id = create(client, requirement)
        return try #require(id, "CreateSession(\(requirement)) failed: \(last)")
    }
}
