import LocationTestSupport
import Testing

@testable import LocationCore

/// SEMANTICS L14: an app with no window is never in front, so it asks for Always, and a While Using decision of it
/// from before carries over.
@Suite("Apps without a window")
struct WindowlessAppTests {
    private static let alice: UInt32 = 1000
    private static let gammastep = AppKey("gammastep", user: alice)

    private static var manifests: [Manifest] {
        var gammastep = Manifest(
            appID: "gammastep",
            whenInUseUsageDescription: "Warmer colours at night",
            alwaysAndWhenInUseUsageDescription: "No window: it follows the sun all day"
        )
        gammastep.backgroundOnly = true
        return Harness.defaultManifests + [gammastep]
    }

    /// A core restored from a store that kept `record` for Alice's gammastep, with `policy` for every user.
    private func restored(_ record: AuthorizationRecord, policy: AppPolicy? = nil) -> Harness {
        var h = Harness(Self.manifests)
        var stored = h.core.snapshot
        stored.records[Self.gammastep] = record
        if let policy { stored.policies["gammastep"] = policy }
        h.core = LocationCore(
            configuration: CoreConfiguration(),
            manifests: Self.manifests,
            restoring: stored,
            epoch: 2,
            at: h.now
        )
        return h
    }

    @Test("L14: the prompt of an app with no window offers Always Allow with its Always text; allowing it is Always")
    func promptOffersAlways() {
        var h = Harness(Self.manifests)
        let client = h.launch("gammastep", user: Self.alice)
        _ = h.create(client, .whenInUse)
        let prompt = h.prompts(Self.gammastep).first
        #expect(prompt?.options == [.allowAlways, .deny])
        #expect(prompt?.usageDescription == "No window: it follows the sun all day")
        #expect(h.answer(Self.gammastep, .allowAlways) == nil)
        #expect(h.authorization(Self.gammastep).status == .authorizedAlways)
        #expect(h.core.apps[Self.gammastep]?.record.provisional == false)
    }

    @Test("L14: a person may not set While Using for an app with no window; Always and Never they may")
    func whileUsingRefused() {
        var h = Harness(Self.manifests)
        let alice = h.person(Self.alice)
        _ = h.launch("gammastep", user: Self.alice)
        let call = h.call(alice, .setAuthorization(appID: "gammastep", setting: .whileUsing, precise: nil, user: nil))
        guard case .invalidParameter(_, let reason)? = h.error(of: call) else {
            Issue.record("While Using was not refused: \(String(describing: h.error(of: call)))")
            return
        }
        #expect(reason.contains("choose always or never"))
        let always = h.call(alice, .setAuthorization(appID: "gammastep", setting: .always, precise: nil, user: nil))
        #expect(h.error(of: always) == nil && h.status(Self.gammastep) == .authorizedAlways)
    }

    @Test("L14: a stored While Using record of an app with no window becomes Always at the first event, logged once")
    func carriedOverAtStart() {
        var h = restored(AuthorizationRecord(status: .authorizedWhenInUse))
        h.advance(1)
        #expect(h.status(Self.gammastep) == .authorizedAlways)
        #expect(h.last.contains { if case .carriedOver(Self.gammastep) = $0 { true } else { false } })
        #expect(
            h.persisted.contains {
                if case .record(Self.gammastep, let r) = $0 { r.status == .authorizedAlways } else { false }
            }
        )
        h.advance(1)
        #expect(!h.last.contains { if case .carriedOver = $0 { true } else { false } }, "once")
    }

    @Test("L14: Allow Once is not carried over, nor a record the administrator's While Using caps")
    func notCarriedOver() {
        var once = AuthorizationRecord(status: .authorizedWhenInUse)
        once.oneTime = true
        var h = restored(once)
        h.advance(1)
        #expect(h.core.apps[Self.gammastep]?.record.status != .authorizedAlways)
        var g = restored(
            AuthorizationRecord(status: .authorizedWhenInUse),
            policy: AppPolicy(setting: .whileUsing, precise: nil)
        )
        g.advance(1)
        #expect(g.status(Self.gammastep) == .authorizedWhenInUse, "the administrator's ceiling stays (H5)")
    }

    @Test("L14: a manifest that comes to say LSBackgroundOnly carries a While Using record over at the reload")
    func carriedOverAtReload() {
        var h = Harness(
            Harness.defaultManifests + [
                Manifest(
                    appID: "gammastep",
                    whenInUseUsageDescription: "Warmer",
                    alwaysAndWhenInUseUsageDescription: "All day"
                )
            ]
        )
        let alice = h.person(Self.alice)
        _ = h.launch("gammastep", user: Self.alice)
        h.call(alice, .setAuthorization(appID: "gammastep", setting: .whileUsing, precise: nil, user: nil))
        #expect(h.status(Self.gammastep) == .authorizedWhenInUse)
        h.send(.reload(manifests: Self.manifests, configuration: CoreConfiguration()))
        #expect(h.status(Self.gammastep) == .authorizedAlways)
    }
}

extension WindowlessAppTests {
    @Test(
        "L14: an app with no window asks in the background, its whenInUse session asks for Always, and is served never in front"
    )
    func sessionsAskForAlways() throws {
        var h = Harness(Self.manifests)
        let client = h.launch("gammastep", user: Self.alice, state: .background)
        let created = h.create(client, .whenInUse)
        let session = try #require(created)
        #expect(h.core.sessionView(session)?.requirement == .always)
        #expect(h.answer(Self.gammastep, .allowAlways) == nil)
        h.advance(60)
        #expect(!h.inUse(Self.gammastep))
        #expect(h.state(session) == .active, "Always serves it, never in front")
    }
}

extension WindowlessAppTests {
    @Test("L14, G32: an administrator's grant of an app with no window reads as Always, serving it never in front")
    func administeredGrantIsAlways() throws {
        var configuration = CoreConfiguration()
        configuration.administeredApps["gammastep"] = AdministeredApp(authorized: true)
        var h = Harness(Self.manifests, configuration: configuration)
        let client = h.launch("gammastep", user: Self.alice, state: .background)
        let created = h.create(client, .whenInUse)
        let session = try #require(created)
        #expect(h.authorization(Self.gammastep).status == .authorizedAlways)
        h.advance(60)
        #expect(h.state(session) == .active)
    }
}
