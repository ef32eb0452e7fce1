import Foundation
import LocationTestSupport
import Testing

@testable import LocationCore

/// SEMANTICS G32: `[[administered-app]]`, the administrator's grant (GeoClue's `system=` and `users=`), laid over
/// each user's record and never stored.
@Suite("Administered apps")
struct AdministeredAppTests {
    private static func administering(_ app: AdministeredApp) -> CoreConfiguration {
        CoreConfiguration(administeredApps: ["com.ex.maps": app])
    }

    @Test(
        "G32: an authorized app's undecided record reads as While Using: no prompt, the session served, nothing stored"
    )
    func authorizedWithoutPrompt() {
        var h = Harness(configuration: Self.administering(AdministeredApp(authorized: true)))
        let maps = h.launch("com.ex.maps", user: 1000, state: .foreground)
        let session = h.create(maps, .whenInUse)!
        let key = AppKey("com.ex.maps", user: 1000)
        #expect(h.status(key) == .authorizedWhenInUse)
        #expect(h.prompts(key).isEmpty)
        #expect(h.mask(session)?.contains(.authorizationDenied) == false)
        #expect(h.core.storedRecord(key) == AuthorizationRecord(), "the grant is policy, never stored")
        // Removed at a reload, the app is undecided again and asks.
        h.send(.reload(manifests: Harness.defaultManifests, configuration: CoreConfiguration()))
        #expect(h.status(key) == .notDetermined)
        #expect(h.prompts(key).map(\.kind) == [.authorization])
    }

    @Test(
        "G32: the grant applies only to an app whose manifest says identity executable; uid or any is asked, and a reload that makes it executable grants"
    )
    func grantNeedsVerifiedIdentity() {
        for identity in [Manifest.Identity.uid, .any] {
            var manifests = Harness.defaultManifests
            manifests[0].identity = identity
            manifests[0].users = ["1000"]
            var h = Harness(manifests, configuration: Self.administering(AdministeredApp(authorized: true)))
            let maps = h.launch("com.ex.maps", user: 1000, state: .foreground)
            let key = AppKey("com.ex.maps", user: 1000)
            #expect(h.status(key) == .notDetermined, "\(identity)")
            _ = h.create(maps, .whenInUse)
            #expect(h.prompts(key).map(\.kind) == [.authorization], "\(identity)")
            // The administrator writes the manifest with identity = "executable": the grant applies, with no prompt.
            let granting = Self.administering(AdministeredApp(authorized: true))
            h.send(.reload(manifests: Harness.defaultManifests, configuration: granting))
            #expect(h.status(key) == .authorizedWhenInUse, "\(identity)")
            #expect(h.prompts(key).isEmpty, "\(identity)")
        }
    }

    @Test("G32: a person's own Never is kept over the administrator's grant")
    func neverWins() {
        var h = Harness(configuration: Self.administering(AdministeredApp(authorized: true)))
        let maps = h.launch("com.ex.maps", user: 1000, state: .foreground)
        let key = AppKey("com.ex.maps", user: 1000)
        let call = h.call(maps, .requestAuthorization(.whenInUse))
        #expect(h.reply(to: call) != nil)
        let person = h.person(1000)
        h.call(person, .setAuthorization(appID: "com.ex.maps", setting: .never, precise: nil, user: nil))
        #expect(h.status(key) == .denied)
    }

    @Test("G32, H5: a person who turns Precise Location off for an administered app gets approximate locations")
    func preciseOffKept() {
        var h = Harness(configuration: Self.administering(AdministeredApp(authorized: true)))
        _ = h.launch("com.ex.maps", user: 1000, state: .foreground)
        let key = AppKey("com.ex.maps", user: 1000)
        #expect(h.core.authorizationView(key).accuracy == .fullAccuracy)
        let person = h.person(1000)
        let set = h.call(person, .setAuthorization(appID: "com.ex.maps", setting: nil, precise: false, user: nil))
        #expect(h.error(of: set) == nil)
        #expect(h.status(key) == .authorizedWhenInUse, "still the administrator's grant")
        #expect(h.core.authorizationView(key).accuracy == .reducedAccuracy)
    }

    @Test("G32: with users, another user's app of the id is restricted, and a listed user's is authorized")
    func users() {
        var h = Harness(configuration: Self.administering(AdministeredApp(authorized: true, users: [1000])))
        _ = h.launch("com.ex.maps", user: 1000, state: .foreground)
        let other = h.launch("com.ex.maps", user: 1001, state: .foreground)
        let session = h.create(other, .whenInUse)!
        #expect(h.status(AppKey("com.ex.maps", user: 1000)) == .authorizedWhenInUse)
        #expect(h.status(AppKey("com.ex.maps", user: 1001)) == .restricted)
        #expect(h.mask(session) == [.authorizationRestricted])
        #expect(h.prompts(AppKey("com.ex.maps", user: 1001)).isEmpty)
    }
}
