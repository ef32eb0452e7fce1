import JSON

/// The replies of a Watch (PROTOCOL.md "io.locd.NetworkLocation"), as Varlink parameters.
enum WatchEvent {
    static let started: JSONObject = ["event": .string("started")]

    static func lost(_ reason: String) -> JSONObject {
        ["event": .string("lost"), "reason": .string(reason)]
    }

    /// A position the service answered at Unix time `timestamp`, for a request that carried `request`.
    static func position(_ answer: GeolocateAnswer, request: GeolocateRequest, timestamp: Double) -> JSONObject {
        let basis = answer.ipFallback ? "ip" : request.basis
        let position: JSONObject = [
            "latitude": .double(answer.latitude), "longitude": .double(answer.longitude),
            "accuracy": .double(answer.accuracy), "timestamp": .double(timestamp), "basis": .string(basis),
            "accessPoints": .int(Int64(request.accessPoints.count)),
        ]
        return ["event": .string("position"), "position": .object(position)]
    }
}
