import JSON

/// `Watch`'s `event` of io.locd.NetworkLocation.
package enum WireNetworkEvent: String, CaseIterable, Hashable, Sendable {
    /// The first reply, at once.
    case started
    /// The service answered with a position.
    case position
    /// There is none to give, and `reason` says why.
    case lost
}

/// `Position` of io.locd.NetworkLocation: what the geolocation service answered.
package struct WirePosition: Hashable, Sendable {
    package var latitude: Double
    package var longitude: Double
    package var accuracy: Double
    /// Unix time in seconds, when the service answered.
    package var timestamp: Double
    /// `wifi` or `ip`: what the request carried.
    package var basis: String
    /// How many access points it carried.
    package var accessPoints: Int

    package init(
        latitude: Double,
        longitude: Double,
        accuracy: Double,
        timestamp: Double,
        basis: String,
        accessPoints: Int
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.timestamp = timestamp
        self.basis = basis
        self.accessPoints = accessPoints
    }

    /// Reads one; nil without a field the IDL requires.
    package init?(json value: JSONValue?) {
        guard let value, let latitude = value["latitude"]?.doubleValue, let longitude = value["longitude"]?.doubleValue,
            let accuracy = value["accuracy"]?.doubleValue, let timestamp = value["timestamp"]?.doubleValue,
            let basis = value["basis"]?.stringValue,
            let accessPoints = value["accessPoints"]?.intValue.flatMap({ Int(exactly: $0) })
        else { return nil }
        self.init(
            latitude: latitude,
            longitude: longitude,
            accuracy: accuracy,
            timestamp: timestamp,
            basis: basis,
            accessPoints: accessPoints
        )
    }

    package var json: JSONValue {
        .object([
            "latitude": .double(latitude), "longitude": .double(longitude), "accuracy": .double(accuracy),
            "timestamp": .double(timestamp), "basis": .string(basis), "accessPoints": .int(Int64(accessPoints)),
        ])
    }
}
