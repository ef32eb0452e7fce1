import JSON

/// What the network provider asks `locd-network` for: `io.locd.NetworkLocation`'s `Settings`, from the keys of
/// its `[[provider]]` table, sent with each `Watch` so that locd.toml stays the one place they are set.
package struct NetworkLocationSettings: Hashable, Sendable {
    /// `accessPoints`: where `locd-network` reads the access points in view.
    package enum AccessPoints: String, Hashable, Sendable {
        case auto
        case wpaSupplicant
        case networkManager
    }

    package var url: String
    package var considerIP: Bool
    package var interval: Double
    package var minimumInterval: Double
    package var accessPoints: AccessPoints

    package init(url: String, considerIP: Bool, interval: Double, minimumInterval: Double, accessPoints: AccessPoints) {
        self.url = url
        self.considerIP = considerIP
        self.interval = interval
        self.minimumInterval = minimumInterval
        self.accessPoints = accessPoints
    }

    /// The `Settings` object of the IDL.
    package var json: JSONValue {
        .object([
            "url": .string(url),
            "considerIp": .bool(considerIP),
            "interval": .double(interval),
            "minimumInterval": .double(minimumInterval),
            "accessPoints": .string(accessPoints.rawValue),
        ])
    }
}
