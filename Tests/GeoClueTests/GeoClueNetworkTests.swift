import Foundation
import LocationTestSupport
import Testing

/// A machine with no GPS, as most Linux machines are: locd's only provider is the network one, and a GeoClue2 client
/// gets the position `locd-network` asked of the geolocation service (a stand-in on 127.0.0.1) for the access points
/// a stand-in wpa_supplicant lists on the same private system bus as locd-geoclue.
@Suite("GeoClue2: a machine without GPS, located by the access points in view", .serialized)
struct GeoClueNetworkTests {
    static let position = (latitude: 48.8584, longitude: 2.2945, accuracy: 40.0)

    @Test(
        "U6, G20: gammastep -p -l geoclue2 gets the network position through locd-geoclue, with no GPS configured",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gammastep"))
    )
    func gammastepGetsNetworkPosition() throws {
        let stands = try TemporaryDirectory(prefix: "geoclue-network")
        defer { stands.remove() }
        let service = try StandInGeolocate(directory: stands.path)
        defer { service.stop() }
        try service.answer(
            latitude: Self.position.latitude,
            longitude: Self.position.longitude,
            accuracy: Self.position.accuracy
        )
        let harness = try GeoClueHarness(
            provider: """
                kind = "network"
                socket = "\(stands.path)/network.sock"
                url = "\(service.url)"
                consider-ip = false
                minimum-interval = 1
                """
        )
        let wifi = try StandInWifi(
            .wpaSupplicant,
            points: StandInWifi.threeWithNomap,
            busAddress: harness.busAddress,
            directory: stands.path
        )
        defer { wifi.stop() }
        let network = try NetworkLocationProcess(directory: stands.path, busAddress: harness.busAddress)
        defer { network.stop() }
        #expect(try harness.locctl(["auth", "gammastep", "while-using"]).status == 0)

        let gammastep = RealGeoClueClient.gammastep
        let program = try ScriptProcess(
            gammastep.program,
            environment: harness.busEnvironment,
            logPath: harness.directory + "/gammastep.log"
        )
        defer { program.kill9() }
        let printed = eventually(timeout: 15, every: 0.05) {
            gammastep.location(in: program.log) != nil || !program.process.isRunning
        }
        let location = try #require(
            printed ? gammastep.location(in: program.log) : nil,
            "\(program.log)\n\(network.log)"
        )
        // gammastep asks at city level (GeoClue's default): locd serves the grid cell around the network position (G2).
        #expect(abs(location.latitude - Self.position.latitude) < 0.1, "\(program.log)")
        #expect(abs(location.longitude - Self.position.longitude) < 0.15, "\(program.log)")
        // The position came from the service, asked with the mappable access points only (U7).
        let asked = try #require(service.requests.first, "the service was never asked: \(network.log)")
        let addresses = asked["wifiAccessPoints"]?.arrayValue?.compactMap { $0["macAddress"]?.stringValue } ?? []
        #expect(Set(addresses) == ["00:11:22:33:44:01", "00:11:22:33:44:02"], "\(asked)")
    }
}
