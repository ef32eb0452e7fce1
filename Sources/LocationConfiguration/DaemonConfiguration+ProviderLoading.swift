import Foundation
import LocationCore
import TOMLKit

// The provider tables (U3, U13, U17): one `[provider]` table, or `[[provider]]` tables in the order they are
// preferred for nothing but status; each read with the same keys, checks and messages.
extension DaemonConfiguration {
    /// Where a provider's `kind` was written, and the key prefix its messages use (`provider`, `provider[2]`).
    struct KindPlace {
        var file: String
        var line: Int?
        var key: String
    }

    static let providerKeys = [
        "kind", "latitude", "longitude", "altitude", "accuracy", "file", "speed-factor", "host", "port", "socket",
        "url", "consider-ip", "interval", "minimum-interval", "access-points", "stale-after",
    ]

    /// Hosts an `http://` `url` may name: this machine only, so that no position request crosses a network
    /// unencrypted.
    static let loopbackHosts: Set<String> = ["localhost", "127.0.0.1", "::1", "[::1]"]

    /// A `[provider]` table sets keys of the one provider, over what earlier files set (U17); `[[provider]]`
    /// tables replace the list, each element starting from the defaults and naming its `kind`.
    mutating func applyProviders(_ document: TOMLDocument, kindPlaces: inout [KindPlace?]) throws(ConfigurationIssue) {
        guard let value = document.value(["provider"]) else { return }
        if value.array != nil {
            let elements = try document.tables(["provider"]) ?? []
            guard !elements.isEmpty else {
                throw document.issue(["provider"], "expected at least one [[provider]] table")
            }
            var read: [Provider] = []
            var places: [KindPlace?] = []
            for element in elements {
                var provider = Provider()
                let place = try Self.applyProviderKeys(element, table: [], to: &provider)
                guard place != nil else {
                    let kinds = Provider.Kind.allCases.map { TOMLDocument.quoted($0.rawValue) }.joined(separator: ", ")
                    throw element.issue([], "each [[provider]] table needs a kind: one of \(kinds)")
                }
                read.append(provider)
                places.append(place)
            }
            providers = read
            kindPlaces = places
            return
        }
        guard try document.table(["provider"], expected: "a table describing the location provider") != nil else {
            return
        }
        guard providers.count == 1 else {
            let message =
                "a [provider] table cannot change the \(providers.count) [[provider]] tables of an earlier file; "
                + "write [[provider]] tables here to replace them all"
            throw document.issue(["provider"], message)
        }
        if let place = try Self.applyProviderKeys(document, table: ["provider"], to: &providers[0]) {
            kindPlaces = [place]
        }
    }

    /// Sets the keys of one provider table; returns where it sets `kind`, if it does.
    private static func applyProviderKeys(
        _ document: TOMLDocument,
        table: [String],
        to provider: inout Provider
    ) throws(ConfigurationIssue) -> KindPlace? {
        if table.isEmpty {
            // An element of [[provider]]: its keys are at its own top level.
            for key in document.keys([]) where !providerKeys.contains(key) {
                let allowed = providerKeys.joined(separator: ", ")
                throw document.issue([key], "unknown key; allowed in [[provider]]: \(allowed)")
            }
        } else {
            try rejectUnknownKeys(document, in: table, allowed: providerKeys)
        }
        let kinds = Provider.Kind.allCases.map { TOMLDocument.quoted($0.rawValue) }.joined(separator: ", ")
        var kindPlace: KindPlace?
        if let value = document.value(table + ["kind"]) {
            guard let name = value.string else {
                throw document.wrongType(table + ["kind"], expected: "one of \(kinds)", found: value)
            }
            guard let kind = Provider.Kind(rawValue: name) else {
                throw document.notAllowed(table + ["kind"], expected: "one of \(kinds)", found: value)
            }
            provider.kind = kind
            // How this table is named in messages: `provider`, or `provider[N]` for an element of the list.
            let key = document.issue(table, "").key ?? "provider"
            kindPlace = KindPlace(file: document.file, line: document.line(of: table + ["kind"]), key: key)
        }
        try applyPointKeys(document, table: table, to: &provider)
        try applySourceKeys(document, table: table, to: &provider)
        try applyNetworkKeys(document, table: table, to: &provider)
        if let seconds = try Self.seconds(document, table + ["stale-after"]) {
            provider.staleAfter = seconds.seconds
        }
        return kindPlace
    }

    /// `latitude`, `longitude`, `altitude` and `accuracy`: the static kind's point.
    private static func applyPointKeys(
        _ document: TOMLDocument,
        table: [String],
        to provider: inout Provider
    ) throws(ConfigurationIssue) {
        let finite = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude
        if let degrees = try document.number(
            table + ["latitude"],
            in: -90...90,
            expected: "degrees of latitude in [-90, 90]"
        ) {
            provider.latitude = degrees
        }
        if let degrees = try document.number(
            table + ["longitude"],
            in: -180...180,
            expected: "degrees of longitude in [-180, 180]"
        ) {
            provider.longitude = degrees
        }
        if let metres = try document.number(table + ["altitude"], in: finite, expected: "a number of metres") {
            provider.altitude = metres
        }
        if let metres = try document.number(
            table + ["accuracy"],
            in: 0...Double.greatestFiniteMagnitude,
            expected: "a number of metres >= 0"
        ) {
            provider.accuracy = metres
        }
    }

    /// `file`, `speed-factor`, `host`, `port` and `socket`: where the nmea, gpsd and network kinds read.
    private static func applySourceKeys(
        _ document: TOMLDocument,
        table: [String],
        to provider: inout Provider
    ) throws(ConfigurationIssue) {
        if let file = try Self.path(document, table + ["file"]) { provider.file = file }
        if let factor = try document.number(
            table + ["speed-factor"],
            in: Double.leastNonzeroMagnitude...Double.greatestFiniteMagnitude,
            expected: "a number > 0"
        ) {
            provider.speedFactor = factor
        }
        if let host = try Self.name(document, table + ["host"], expected: "a host name or address") {
            provider.host = host
        }
        if let port = try document.integer(table + ["port"], in: 1...65535, expected: "a port number in 1...65535") {
            provider.port = port
        }
        if let socket = try Self.path(document, table + ["socket"]) {
            guard socket.utf8.count <= Self.maximumSocketPathBytes else {
                let expected = "a socket path of at most \(Self.maximumSocketPathBytes) bytes"
                throw document.issue(table + ["socket"], "expected \(expected), found \(socket.utf8.count) bytes")
            }
            provider.socket = socket
        }
    }

    /// `url`, `consider-ip`, `interval`, `minimum-interval` and `access-points`: the network kind's settings.
    private static func applyNetworkKeys(
        _ document: TOMLDocument,
        table: [String],
        to provider: inout Provider
    ) throws(ConfigurationIssue) {
        if let value = document.value(table + ["url"]) {
            let expected = "an https:// URL, or http:// on a loopback host (localhost, 127.0.0.1, [::1])"
            guard let text = value.string else {
                throw document.wrongType(table + ["url"], expected: expected, found: value)
            }
            guard isAcceptableURL(text) else {
                throw document.notAllowed(table + ["url"], expected: expected, found: value)
            }
            provider.url = text
        }
        if let consider = try document.bool(table + ["consider-ip"]) { provider.considerIP = consider }
        if let span = try Self.seconds(document, table + ["interval"]) { provider.interval = span.seconds }
        if let span = try Self.seconds(document, table + ["minimum-interval"]) {
            provider.minimumInterval = span.seconds
        }
        let choices = Provider.AccessPoints.allCases.map { TOMLDocument.quoted($0.rawValue) }.joined(separator: ", ")
        if let choice = try document.value(
            table + ["access-points"],
            expected: "one of \(choices)",
            { $0.string.flatMap(Provider.AccessPoints.init(rawValue:)) }
        ) {
            provider.accessPoints = choice
        }
    }

    /// Whether `text` is an `https://` URL with a host, or an `http://` one whose host is this machine.
    static func isAcceptableURL(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else { return false }
        switch scheme {
        case "https": return true
        case "http": return loopbackHosts.contains(host.lowercased()) || isLoopbackIPv4(host)
        default: return false
        }
    }

    /// Whether `host` is a dotted IPv4 address in 127.0.0.0/8.
    private static func isLoopbackIPv4(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// Requirements that span keys and files, checked once every file has been applied.
    func check(kindPlaces: [KindPlace?]) throws(ConfigurationIssue) {
        for (index, provider) in providers.enumerated() {
            let place = index < kindPlaces.count ? kindPlaces[index] : nil
            let key = place?.key ?? "provider"
            if provider.kind == .nmea && provider.file == nil {
                throw ConfigurationIssue(
                    file: place?.file ?? Self.defaultPath,
                    line: place?.line,
                    key: key + ".file",
                    message: "required when kind = \"nmea\": the NMEA 0183 file to replay"
                )
            }
            if provider.kind == .network && provider.minimumInterval > provider.interval {
                throw ConfigurationIssue(
                    file: place?.file ?? Self.defaultPath,
                    line: place?.line,
                    key: key + ".minimum-interval",
                    message: "must not be longer than interval (\(provider.minimumInterval) s > \(provider.interval) s)"
                )
            }
        }
    }
}
