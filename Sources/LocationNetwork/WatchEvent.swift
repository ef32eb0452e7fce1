import JSON
import LocationProtocol

/// The replies of a Watch (PROTOCOL.md "io.locd.NetworkLocation"), as Varlink parameters.
enum WatchEvent {
    static let started: JSONObject = ["event": .string(WireNetworkEvent.started.rawValue)]

    static func lost(_ reason: String) -> JSONObject {
        ["event": .string(WireNetworkEvent.lost.rawValue), "reason": .string(reason)]
    }

    /// A position the service answered at Unix time `timestamp`, for a request that carried `request`.
    static func position(_ answer: GeolocateAnswer, request: GeolocateRequest, timestamp: Double) -> JSONObject {
        let position = WirePosition(
            latitude: answer.latitude,
            longitude: answer.longitude,
            accuracy: answer.accuracy,
            timestamp: timestamp,
            basis: answer.ipFallback ? "ip" : request.basis,
            accessPoints: request.accessPoints.count
        )
        return ["event": .string(WireNetworkEvent.position.rawValue), "position": position.json]
    }
}
