import Foundation
import LocationTestSupport
import Testing

/// The GeoClue2 clients distributions ship, run unchanged: each gets a location from locd through locd-geoclue,
/// decided by locd and answered by `locctl agent`, and the same program gets one from the real GeoClue 2.6.
@Suite("GeoClue2: real clients get a location from locd-geoclue and from GeoClue 2.6", .serialized)
struct GeoClueRealClientTests {
    @Test(
        "G20: where-am-i, gammastep -p, redshift -p and Geoclue.Simple print a location near the fix",
        arguments: GeoClueOwner.allCases,
        RealGeoClueClient.allCases
    )
    func clientPrintsLocation(owner: GeoClueOwner, client: RealGeoClueClient) throws {
        if let reason = client.unavailable { try skipCase("\(client.testDescription): \(reason)") }
        let running = try owner.start()
        let program = try running.runInBackground(client.program)
        defer { program.kill9() }
        let printed = eventually(timeout: 15, every: 0.05) {
            client.location(in: program.log) != nil || !program.process.isRunning
        }
        let agentLog = running.agent?.log ?? ""
        let location = try #require(printed ? client.location(in: program.log) : nil, "\(program.log)\n\(agentLog)")
        if client.exact {
            #expect(abs(location.latitude - GeoClueHarness.latitude) < 0.000_01, "\(program.log)")
            #expect(abs(location.longitude - GeoClueHarness.longitude) < 0.000_01, "\(program.log)")
        } else {
            // City level: locd serves the grid cell (G2), GeoClue its web service's answer; both within a cell.
            #expect(abs(location.latitude - GeoClueHarness.latitude) < 0.1, "\(program.log)")
            #expect(abs(location.longitude - GeoClueHarness.longitude) < 0.15, "\(program.log)")
            if let accuracy = location.accuracy { #expect(accuracy == 5000, "\(program.log)") }
        }
        if let harness = running.locd {
            // locd decided: the app's first Start was a prompt, which the agent answered allow-while-using.
            #expect(try harness.authorization(of: client.appId) == "authorizedWhenInUse", "\(agentLog)")
        }
    }

    @Test(
        "G20: locctl status lists each real client as using location while it runs, and not once it stopped",
        arguments: RealGeoClueClient.allCases.filter { $0 != .whereAmICity }
    )
    func statusListsRunningClient(client: RealGeoClueClient) throws {
        if let reason = client.unavailable { try skipCase("\(client.testDescription): \(reason)") }
        let running = try GeoClueOwner.locd.start()
        let harness = try #require(running.locd)
        let usingLocation = {
            let status = try harness.locctl(["status", "--json"]).output
            let object = try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any]
            return object?["appsUsingLocation"] as? [String] ?? []
        }
        #expect(try usingLocation().isEmpty)
        let program = try running.runInBackground(client.lasting)
        let located = eventually(timeout: 15, every: 0.05) {
            client.location(in: program.log) != nil || !program.process.isRunning
        }
        #expect(located && program.process.isRunning, "\(program.log)")
        #expect(try usingLocation().contains(client.appId), "\(program.log)")
        program.kill9()
        #expect(try eventually(timeout: 10, every: 0.05) { try !usingLocation().contains(client.appId) })
    }
}
