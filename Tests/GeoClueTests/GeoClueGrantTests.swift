import Foundation
import LocationTestSupport
import Testing

/// The administrator's grant (GeoClue's `system=true`, imported by locd) against a client that only says the id.
@Suite("GeoClue2: a configuration grant reaches only an app whose identity locd verifies", .serialized)
struct GeoClueGrantTests {
    /// Debian 12's own `/etc/geoclue/geoclue.conf` (GeoClue 2.6), comments left out.
    static let debian = """
        [agent]
        whitelist=geoclue-demo-agent;gnome-shell;io.elementary.desktop.agent-geoclue2;sm.puri.Phosh;lipstick
        [network-nmea]
        enable=true
        [3g]
        enable=true
        [cdma]
        enable=true
        [modem-gps]
        enable=true
        [wifi]
        enable=true
        submit-data=false
        submission-nick=geoclue
        [compass]
        enable=true
        [gnome-datetime-panel]
        allowed=true
        system=true
        users=
        [gnome-color-panel]
        allowed=true
        system=true
        users=
        [org.gnome.Shell]
        allowed=true
        system=true
        users=
        [io.elementary.desktop.agent-geoclue2]
        allowed=true
        system=true
        users=
        [sm.puri.Phosh]
        allowed=true
        system=true
        users=
        [epiphany]
        allowed=true
        system=false
        users=
        [firefox]
        allowed=true
        system=false
        users=
        [lipstick]
        allowed=true
        system=true
        users=

        """

    @Test(
        "G32, G31, I11: nobody's client saying DesktopId=org.gnome.Shell under Debian's geoclue.conf, with no agent, gets no location"
    )
    func claimedShellIsAsked() throws {
        // unknown-brokered-apps = "ask", the default; agent-wait short, so that a prompt nobody can answer ends.
        let harness = try GeoClueHarness(agentWait: 1, unknownApps: "ask", importedGeoClue: Self.debian)
        let result = try harness.python(
            ["where-am-i", "org.gnome.Shell", "8"],
            asUID: GeoClueHarness.ordinaryUID,
            timeout: 30
        )
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(reply["Latitude"] == nil, "a client that only says the id was located: \(reply)")
        #expect(reply["error"] != nil, "\(reply)")
        let app = try harness.app("org.gnome.Shell", of: GeoClueHarness.ordinaryUID)
        let status = (app?["authorization"] as? [String: Any])?["status"] as? String
        #expect(status != "authorizedWhenInUse", "\(app ?? [:])")
        // Said once at start, with what to write: the imported grant of an id no manifest verifies grants nothing.
        let log = harness.locd?.log ?? ""
        for id in ["org.gnome.Shell", "lipstick", "sm.puri.Phosh", "io.elementary.desktop.agent-geoclue2"] {
            let line = "the grant of \(id) (GeoClue's [\(id)] system=true"
            #expect(log.components(separatedBy: line).count == 2, "\(id): \(log)")
        }
        #expect(log.contains("identity = \"executable\" and executables = [the path of its program]"))
    }

    @Test("G32: a client whose program the id's manifest names (identity executable) gets the grant with no prompt")
    func verifiedShellIsGranted() throws {
        let python = GeoClueHarness.realPath("/usr/bin/python3")
        let manifest = """
            id = "org.gnome.Shell"
            identity = "executable"
            executables = ["\(python)"]
            NSLocationWhenInUseUsageDescription = "Shows the weather where you are"
            """
        let harness = try GeoClueHarness(
            agentWait: 1,
            unknownApps: "ask",
            importedGeoClue: Self.debian,
            manifests: ["org.gnome.Shell": manifest]
        )
        let result = try harness.python(
            ["where-am-i", "org.gnome.Shell", "8"],
            asUID: GeoClueHarness.ordinaryUID,
            timeout: 30
        )
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect((reply["Latitude"] as? Double).map { abs($0 - GeoClueHarness.latitude) < 0.001 } == true, "\(reply)")
        let log = harness.locd?.log ?? ""
        #expect(!log.contains("the grant of org.gnome.Shell"), "\(log)")
    }
}
