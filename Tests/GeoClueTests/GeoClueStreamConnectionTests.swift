import Foundation
import JSON
import LocationTestSupport
import Testing

/// What a program that starts and stops GeoClue clients again and again costs locd (SEMANTICS G6, U18), with the real
/// locd and locd-geoclue on a private system bus.
@Suite("GeoClue2: a peer's stream connection serves Start after Start")
struct GeoClueStreamConnectionTests {
    @Test(
        "U18, G6: Start and Stop in a tight loop cost locd three calls a cycle: no new connection, no Hello, per Start"
    )
    func churnKeepsItsStreamConnection() throws {
        let harness = try GeoClueHarness()
        #expect(try harness.locctl(["auth", "test.allowed", "while-using"]).status == 0)
        let cycles = 400
        let before = try GeoCluePendingPromptTests.calls(harness)
        let result = try harness.python(["cycles", "test.allowed", String(cycles)], timeout: 120)
        let after = try GeoCluePendingPromptTests.calls(harness)
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(reply["cycles"] as? Int == cycles, "\(reply)")
        // Each cycle: CreateSession, LiveUpdates (on the stream connection the cycle before left), InvalidateSession.
        // Besides: the Hellos of the peer's two connections and the second read. A stream opened just after its
        // session ended (the Stop came first) is answered SessionInvalidated, and its connection serves the next.
        let extra = after - before - 3 * cycles - 3
        #expect(extra <= 2, "\(extra) calls more than three a cycle")
    }
}
