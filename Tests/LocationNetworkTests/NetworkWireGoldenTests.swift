import JSON
import LocationProtocol
import LocationTestSupport
import Testing

@testable import LocationNetwork

/// locd-network's Watch replies against the golden positions of LocationProtocolTests, which locd's network provider
/// reads through the same type.
@Suite struct NetworkWireGoldenTests {
    @Test("U6: a Watch's position is Position.json's, its basis wifi with the access points carried, or ip")
    func positions() throws {
        let wifi = GeolocateRequest(
            considerIp: true,
            accessPoints: [WireFormatTests.point(1, "home", -50), WireFormatTests.point(2, "cafe", -70)]
        )
        let written = [
            WatchEvent.position(
                GeolocateAnswer(latitude: 52.52, longitude: 13.405, accuracy: 30),
                request: wifi,
                timestamp: 1_700_000_000.5
            ),
            WatchEvent.position(
                GeolocateAnswer(latitude: 48.8566, longitude: 2.3522, accuracy: 5000, ipFallback: true),
                request: GeolocateRequest(considerIp: true, accessPoints: []),
                timestamp: 1_700_000_060
            ),
        ]
        let expected = try WireGolden.messages("Position")
        #expect(written.map { $0["event"] } == Array(repeating: .string("position"), count: 2))
        #expect(written.map { $0["position"]?.serialized } == expected.map(\.serialized))
        #expect(expected.allSatisfy { WirePosition(json: $0) != nil })
    }
}
