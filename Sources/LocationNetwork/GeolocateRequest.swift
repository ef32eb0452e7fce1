import JSON

/// One request to an ichnaea-compatible geolocate endpoint (U6): the access points in view and whether the
/// service may fall back on the IP address the request comes from. Nothing else is sent.
public struct GeolocateRequest: Sendable, Hashable {
    public var considerIp: Bool
    public var accessPoints: [AccessPoint]

    public init(considerIp: Bool, accessPoints: [AccessPoint]) {
        self.considerIp = considerIp
        self.accessPoints = accessPoints
    }

    /// What the request is based on: access points, or (with none) the IP address alone.
    public var basis: String { accessPoints.isEmpty ? "ip" : "wifi" }

    /// The JSON body: `{"considerIp": …, "wifiAccessPoints": [{"macAddress": "aa:bb:…", "signalStrength": -60}]}`.
    public var body: String {
        let points = accessPoints.map { point -> JSONValue in
            .object(["macAddress": .string(point.macAddress), "signalStrength": .int(Int64(point.signal))])
        }
        return JSONValue.object(["considerIp": .bool(considerIp), "wifiAccessPoints": .array(points)]).serialized
    }
}
