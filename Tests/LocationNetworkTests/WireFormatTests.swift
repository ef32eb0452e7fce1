import JSON
import LocationNetwork
import Testing

/// What goes to the geolocation service and what is taken from it, and the settings a Watch may give:
/// SEMANTICS U6, U7, U10 and U12, without a process.
@Suite struct WireFormatTests {
    static func point(_ last: UInt8, _ ssid: String, _ signal: Int, first: UInt8 = 0x00) -> AccessPoint {
        AccessPoint(bssid: [first, 0x11, 0x22, 0x33, 0x44, last], ssid: Array(ssid.utf8), signal: signal)
    }

    @Test("U6: the request carries considerIp and each access point's BSSID and signal, nothing else")
    func requestBody() throws {
        let request = GeolocateRequest(
            considerIp: false,
            accessPoints: [Self.point(0xab, "Home", -50), Self.point(0x02, "Cafe", -61)]
        )
        let body = try #require(JSONValue.parse(Array(request.body.utf8))?.objectValue)
        #expect(body.keys == ["considerIp", "wifiAccessPoints"])
        #expect(body["considerIp"] == .bool(false))
        let points = try #require(body["wifiAccessPoints"]?.arrayValue)
        #expect(
            points == [
                .object(["macAddress": "00:11:22:33:44:ab", "signalStrength": .int(-50)]),
                .object(["macAddress": "00:11:22:33:44:02", "signalStrength": .int(-61)]),
            ]
        )
        #expect(!request.body.contains("Home"))
        #expect(request.basis == "wifi")
        #expect(
            GeolocateRequest(considerIp: true, accessPoints: []).body == #"{"considerIp":true,"wifiAccessPoints":[]}"#
        )
        #expect(GeolocateRequest(considerIp: true, accessPoints: []).basis == "ip")
    }

    @Test("U7: _nomap, zero, group and locally administered BSSIDs are withheld; the rest go strongest first")
    func withheld() {
        let points = [
            Self.point(0x01, "Weak", -80),
            Self.point(0x02, "Mine_nomap", -30),
            AccessPoint(bssid: [0, 0, 0, 0, 0, 0], ssid: Array("Zero".utf8), signal: -40),
            Self.point(0x03, "Phone", -35, first: 0x02),
            Self.point(0x04, "Group", -35, first: 0x01),
            Self.point(0x05, "Strong", -45),
            Self.point(0x05, "Strong again", -45),
            AccessPoint(bssid: [1, 2, 3], ssid: [], signal: -10),
        ]
        #expect(AccessPoint.sendable(points).map(\.macAddress) == ["00:11:22:33:44:05", "00:11:22:33:44:01"])
        #expect(
            points.map(\.withheld) == [
                nil, "_nomap", "zero BSSID", "locally administered BSSID", "group BSSID", nil, nil,
                "not a 6-octet BSSID",
            ]
        )
        // Only the suffix opts out.
        #expect(Self.point(0x06, "_nomap_not", -50).withheld == nil)
    }

    @Test("U6: at most 20 access points go in one request, the strongest")
    func atMostTwenty() {
        let many = (0..<40).map { Self.point(UInt8($0), "AP\($0)", -90 + $0) }
        let sent = AccessPoint.sendable(many)
        #expect(sent.count == 20)
        #expect(sent.first?.signal == -51)
        #expect(sent.last?.signal == -70)
    }

    @Test("U6: NetworkManager's Strength in percent is turned back into dBm as NetworkManager made it")
    func strength() {
        #expect(AccessPoint.dBm(fromPercent: 100) == -40)
        #expect(AccessPoint.dBm(fromPercent: 0) == -100)
        #expect(AccessPoint.dBm(fromPercent: 83) == -50)
        #expect(AccessPoint.dBm(fromPercent: 67) == -60)
        #expect(AccessPoint.dBm(fromPercent: 255) == -40)
    }

    static func settings(_ changes: [String: JSONValue] = [:]) -> JSONValue {
        var object: JSONObject = [
            "url": "https://api.beacondb.net/v1/geolocate", "considerIp": .bool(false), "interval": .double(300),
            "minimumInterval": .double(10), "accessPoints": "auto",
        ]
        for (key, value) in changes { object[key] = value }
        return .object(object)
    }

    @Test("U10: https:// anywhere, http:// on loopback only, and the intervals are checked")
    func settings() {
        #expect(throws: Never.self) { try NetworkSettings.parse(Self.settings()).get() }
        for url in [
            "http://127.0.0.1:8080/v1/geolocate", "http://127.3.4.5/x", "http://localhost/x", "http://[::1]:9/x",
        ] {
            #expect((try? NetworkSettings.parse(Self.settings(["url": .string(url)])).get()) != nil, "\(url)")
        }
        let refused: [(String, JSONValue, String)] = [
            ("url", "http://api.beacondb.net/v1/geolocate", "not a loopback address"),
            ("url", "http://128.0.0.1/x", "not a loopback address"),
            ("url", "http://localhost.example.com/x", "not a loopback address"),
            ("url", "ftp://example.com/x", "scheme ftp"),
            ("url", "geolocate", "not an absolute URL"),
            ("url", "https://user:pw@example.com/x", "user or password"),
            ("url", .string("https://example.com/" + String(repeating: "a", count: 3000)), "longer than 2048 bytes"),
            ("interval", .double(0), "more than 0"),
            ("interval", .double(-5), "more than 0"),
            ("minimumInterval", .double(0.1), "at least 1"),
            ("minimumInterval", .double(301), "more than interval"),
            ("accessPoints", "modem", "auto, wpaSupplicant, networkManager"),
            ("considerIp", "yes", "true or false"),
        ]
        for (field, value, words) in refused {
            let result = NetworkSettings.parse(Self.settings([field: value]))
            guard case .failure(let invalid) = result else {
                Issue.record("\(field) = \(value) was taken")
                continue
            }
            #expect(invalid.field == field)
            #expect(invalid.reason.contains(words), "\(invalid.reason)")
        }
        #expect((try? NetworkSettings.parse(nil).get()) == nil)
    }

    @Test("U12: an answer is a position only with latitude, longitude and accuracy in range")
    func answers() throws {
        func decode(_ text: String, status: Int = 200) -> Result<GeolocateAnswer, GeolocateFailure> {
            GeolocateAnswer.decode(status: status, body: Array(text.utf8))
        }
        #expect(
            try decode(#"{"location": {"lat": 52.52, "lng": 13.405}, "accuracy": 5000}"#).get()
                == GeolocateAnswer(latitude: 52.52, longitude: 13.405, accuracy: 5000)
        )
        #expect(
            try decode(#"{"location": {"lat": 1, "lng": 2}, "accuracy": 3, "fallback": "ipf"}"#).get().ipFallback
        )
        let bad: [(String, Int, String)] = [
            ("<html>", 200, "not JSON"),
            ("[1, 2]", 200, "not a JSON object"),
            (#"{"accuracy": 5}"#, 200, "no \"location\" object"),
            (#"{"location": {"lng": 1}, "accuracy": 5}"#, 200, "no number \"lat\""),
            (#"{"location": {"lat": "1", "lng": 1}, "accuracy": 5}"#, 200, "no number \"lat\""),
            (#"{"location": {"lat": 1}, "accuracy": 5}"#, 200, "no number \"lng\""),
            (#"{"location": {"lat": 1, "lng": 1}}"#, 200, "no number \"accuracy\""),
            (#"{"location": {"lat": 123, "lng": 1}, "accuracy": 5}"#, 200, "latitude 123.0 is outside"),
            (#"{"location": {"lat": 1, "lng": -181}, "accuracy": 5}"#, 200, "longitude -181.0 is outside"),
            (#"{"location": {"lat": 1, "lng": 1}, "accuracy": 0}"#, 200, "accuracy 0.0"),
            (#"{"location": {"lat": 1, "lng": 1}, "accuracy": 1e9}"#, 200, "accuracy"),
            (#"{"error": {"code": 404, "message": "Not found"}}"#, 404, "knows no position"),
            ("", 503, "HTTP 503"),
        ]
        for (text, status, words) in bad {
            guard case .failure(let failure) = decode(text, status: status) else {
                Issue.record("\(text) was taken")
                continue
            }
            #expect(failure.description.contains(words), "\(failure)")
        }
    }
}
