import Foundation
import JSON

/// The settings of one `io.locd.NetworkLocation.Watch`: where to ask, how often, and where the access points come
/// from. Watches with equal settings share one schedule (SEMANTICS U12).
public struct NetworkSettings: Sendable, Hashable {
    /// Where the access points are read from (U6).
    public enum AccessPointSource: String, Sendable, Hashable, CaseIterable {
        case auto, wpaSupplicant, networkManager
    }

    public var url: String
    public var considerIp: Bool
    public var interval: Double
    public var minimumInterval: Double
    public var accessPoints: AccessPointSource

    public init(
        url: String,
        considerIp: Bool,
        interval: Double,
        minimumInterval: Double,
        accessPoints: AccessPointSource
    ) {
        self.url = url
        self.considerIp = considerIp
        self.interval = interval
        self.minimumInterval = minimumInterval
        self.accessPoints = accessPoints
    }

    /// The longest `interval` taken: a day. A longer one is almost surely a unit mistake (milliseconds).
    public static let maximumInterval = 86_400.0
    /// The shortest `minimumInterval` taken: a service is not to be asked more than once a second.
    public static let shortestMinimumInterval = 1.0
    /// The longest `url` taken, in bytes.
    public static let maximumURLBytes = 2048

    /// Reads and checks the `settings` parameter of a Watch (U10).
    public static func parse(_ value: JSONValue?) -> Result<NetworkSettings, InvalidSettings> {
        guard let object = value?.objectValue else {
            return .failure(
                InvalidSettings(
                    "settings",
                    "expected an object with url, considerIp, interval, minimumInterval and accessPoints"
                )
            )
        }
        guard let url = object["url"]?.stringValue else {
            return .failure(
                InvalidSettings(
                    "url",
                    "expected a string: the geolocate endpoint, e.g. https://api.beacondb.net/v1/geolocate"
                )
            )
        }
        if let refusal = checkURL(url) { return .failure(refusal) }
        guard let considerIp = object["considerIp"]?.boolValue else {
            return .failure(InvalidSettings("considerIp", "expected true or false"))
        }
        guard let interval = object["interval"]?.doubleValue, interval.isFinite, interval > 0,
            interval <= maximumInterval
        else {
            return .failure(
                InvalidSettings("interval", "expected seconds, more than 0 and at most \(Int(maximumInterval))")
            )
        }
        guard let minimum = object["minimumInterval"]?.doubleValue, minimum.isFinite,
            minimum >= shortestMinimumInterval
        else {
            return .failure(
                InvalidSettings("minimumInterval", "expected seconds, at least \(Int(shortestMinimumInterval))")
            )
        }
        guard minimum <= interval else {
            return .failure(
                InvalidSettings(
                    "minimumInterval",
                    "is more than interval (\(minimum) > \(interval)): make it at most interval"
                )
            )
        }
        let names = AccessPointSource.allCases.map(\.rawValue).joined(separator: ", ")
        guard let kind = object["accessPoints"]?.stringValue.flatMap(AccessPointSource.init(rawValue:)) else {
            return .failure(InvalidSettings("accessPoints", "expected one of \(names)"))
        }
        return .success(
            NetworkSettings(
                url: url,
                considerIp: considerIp,
                interval: interval,
                minimumInterval: minimum,
                accessPoints: kind
            )
        )
    }

    /// Why `url` is refused, or `nil`: an absolute https:// URL, or http:// on a loopback host (U10).
    static func checkURL(_ url: String) -> InvalidSettings? {
        guard url.utf8.count <= maximumURLBytes else {
            return InvalidSettings("url", "is longer than \(maximumURLBytes) bytes")
        }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else {
            return InvalidSettings(
                "url",
                "is not an absolute URL: give one such as https://api.beacondb.net/v1/geolocate"
            )
        }
        if components.user != nil || components.password != nil {
            return InvalidSettings("url", "carries a user or password: put an API key in the query (?key=…) instead")
        }
        switch scheme {
        case "https": return nil
        case "http":
            if isLoopback(host) { return nil }
            return InvalidSettings(
                "url",
                "is http:// to \(host), which is not a loopback address: use https:// (http:// only for 127.0.0.0/8, ::1 and localhost)"
            )
        default:
            return InvalidSettings("url", "has the scheme \(scheme): use https:// (or http:// on a loopback address)")
        }
    }

    /// Whether `host` is `localhost`, an IPv4 address in 127.0.0.0/8, or `::1` (bracketed or not).
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) }) else {
            return false
        }
        let octets = parts.compactMap { UInt8($0) }
        return octets.count == 4 && octets[0] == 127
    }
}
