import AppIdentifiers
import GeoClueConfiguration
import LocationCore

// `[[administered-app]]` (G32), `[geoclue]` (G30) and what locd takes from GeoClue's configuration (G31, G33).
extension DaemonConfiguration {
    static let administeredAppKeys = ["id", "authorized", "users"]
    static let geoClueKeys = ["config", "geolocation"]

    /// `[[administered-app]]` tables: a later file's table of an app id replaces an earlier one's, the others stay,
    /// so that a drop-in adds an app without repeating the rest.
    mutating func applyAdministeredApps(_ document: TOMLDocument) throws(ConfigurationIssue) {
        guard let tables = try document.tables(["administered-app"]) else { return }
        for table in tables {
            try Self.rejectUnknownKeys(table, in: [], allowed: Self.administeredAppKeys)
            guard let id = try Self.appID(table, ["id"]) else {
                throw table.issue([], "each [[administered-app]] table needs an id: the app id it is for")
            }
            var app = AdministeredApp()
            if let authorized = try table.bool(["authorized"]) { app.authorized = authorized }
            if let users = try table.array(
                ["users"],
                expected: "an array of uids (integers >= 0)",
                element: { $0.int.flatMap { UInt32(exactly: $0) } }
            ) {
                app.users = Set(users)
            }
            administeredApps.removeAll { $0.id == id }
            let origin = "[[administered-app]] of \(table.file):\(table.line(of: ["id"]).map(String.init) ?? "?")"
            administeredApps.append(AdministeredAppEntry(id: id, app: app, origin: origin))
        }
    }

    /// `[geoclue]`: where GeoClue's configuration is (G30).
    mutating func applyGeoClueTable(_ document: TOMLDocument) throws(ConfigurationIssue) {
        let table = ["geoclue"]
        guard try document.table(table, expected: "a table naming GeoClue's configuration") != nil else { return }
        try Self.rejectUnknownKeys(document, in: table, allowed: Self.geoClueKeys)
        if let path = try Self.path(document, table + ["config"]) { geoClue.config = path }
        if let path = try Self.path(document, table + ["geolocation"]) { geoClue.geolocation = path }
    }

    /// G31: takes what GeoClue's configuration says where locd's own files say nothing of it; keeps the keys it
    /// cannot carry in ``geoClueNotCarried`` (G33). Nothing when `[geoclue] config` is unset or its file missing.
    /// - Parameter providersWritten: whether a locd file wrote `provider`: then GeoClue's sources are not used;
    ///   else they change the built-in providers (U28), which the caller has set.
    /// - Throws: a GeoClue file that cannot be read or has a bad line or value, as a bad locd.toml (G30).
    package mutating func importGeoClue(providersWritten: Bool) throws(ConfigurationIssue) {
        geoClueNotCarried = []
        guard let main = geoClue.config else { return }
        do throws(GeoClueIssue) {
            guard let keyFile = try GeoClueKeyFile.load(main: main) else { return }
            let settings = try GeoClueSettings(keyFile)
            geoClueNotCarried = settings.notCarried.map(\.description)
            if !providersWritten {
                // U28: GeoClue's sources change the built-in list; the gpsd provider stays, since GeoClue's NMEA
                // receivers are what gpsd reads.
                var fixedPoint: Provider?
                if settings.staticSource {
                    let point = try GeoClueStaticLocation.load(geoClue.geolocation)
                    var provider = Provider()
                    provider.kind = .fixedPoint
                    provider.latitude = point.latitude
                    provider.longitude = point.longitude
                    provider.altitude = point.altitude
                    if let accuracy = point.accuracy { provider.accuracy = accuracy }
                    fixedPoint = provider
                }
                if let network = providers.firstIndex(where: { $0.kind == .network }) {
                    if !settings.wifi {
                        providers.remove(at: network)
                    } else if let url = settings.wifiURL {
                        guard Self.isAcceptableURL(url) else {
                            let entry = keyFile.entry("wifi", "url")
                            throw GeoClueIssue(
                                file: entry?.file ?? main,
                                line: entry?.line,
                                key: "wifi.url",
                                message: "expected an https:// URL, or http:// on a loopback host, found \"\(url)\""
                            )
                        }
                        providers[network].url = url
                    }
                }
                if let fixedPoint { providers.insert(fixedPoint, at: 0) }
            }
            let named = Set(restrictedApps).union(administeredApps.map(\.id))
            for app in settings.apps where !named.contains(app.id) {
                // I15: a section that names no app id is skipped and said, as G33 says what is not carried.
                guard AppIdentifier.isValid(app.id) else {
                    let issue = GeoClueIssue(
                        file: main,
                        line: nil,
                        key: app.id,
                        message: "not carried: " + AppIdentifier.rule
                    )
                    geoClueNotCarried.append(issue.description)
                    continue
                }
                if !app.allowed {
                    restrictedApps.append(app.id)
                } else if app.system || !app.users.isEmpty {
                    let users = app.users.isEmpty ? nil : Set(app.users)
                    let entry = keyFile.entry(app.id, "system")
                    let origin =
                        "GeoClue's [\(app.id)] system=true, \(entry?.file ?? main):\(entry.map { String($0.line) } ?? "?")"
                    administeredApps.append(
                        AdministeredAppEntry(
                            id: app.id,
                            app: AdministeredApp(authorized: app.system, users: users),
                            origin: origin
                        )
                    )
                }
            }
        } catch {
            throw ConfigurationIssue(file: error.file, line: error.line, key: error.key, message: error.message)
        }
    }
}
