import Foundation
import LocationTestSupport
import Testing

/// xdg-desktop-portal 1.16's Location portal in front of locd-geoclue (and, to compare, GeoClue 2.6): a session bus
/// of its own (`dbus-run-session`), the headless Access backend of Fixtures/portal, and a client of
/// org.freedesktop.portal.Location as a sandboxed app uses it (Fixtures/portal/run-portal-session.py).
@Suite("GeoClue2: the desktop portal's Location portal gets a location", .serialized)
struct GeoCluePortalTests {
    static let portal = "/usr/libexec/xdg-desktop-portal"

    @Test(
        "G21: a client of org.freedesktop.portal.Location gets the fix through the portal",
        arguments: GeoClueOwner.allCases
    )
    func portalClientGetsLocation(owner: GeoClueOwner) throws {
        if !FileManager.default.isExecutableFile(atPath: Self.portal) {
            try skipCase("the portal: \(Self.portal) is missing (Debian: xdg-desktop-portal)")
        }
        let running = try owner.start()
        let result = try running.run(
            ["/usr/bin/python3", GeoClueHarness.fixture("portal/run-portal-session.py"), running.directory],
            timeout: 30
        )
        let portalLog = (try? String(contentsOfFile: running.directory + "/xdg-desktop-portal.log", encoding: .utf8))
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)\n\(portalLog ?? "")")
        // The portal asks for exact locations (accuracy 5): the fix itself.
        #expect(reply["latitude"] as? Double == GeoClueHarness.latitude, "\(reply)")
        #expect(reply["longitude"] as? Double == GeoClueHarness.longitude, "\(reply)")
        if let harness = running.locd {
            // One locd app for the portal, whatever app is behind it (its DesktopId), decided by the agent's answer.
            #expect(try harness.authorization(of: "xdg-desktop-portal") == "authorizedWhenInUse", "\(reply)")
        }
    }
}
