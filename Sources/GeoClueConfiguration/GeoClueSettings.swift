/// What GeoClue's configuration means where locd has a meaning for it (SEMANTICS G31), and each key that has none
/// (G33). Pure: built from a ``GeoClueKeyFile``.
package struct GeoClueSettings: Hashable, Sendable {
    /// One app section: `[app-id] allowed= system= users=`.
    package struct App: Hashable, Sendable {
        package var id: String
        /// `allowed`, GeoClue's default true.
        package var allowed = true
        /// `system`, GeoClue's default false.
        package var system = false
        /// `users`: uids; empty means every user.
        package var users: [UInt32] = []

        package init(id: String, allowed: Bool = true, system: Bool = false, users: [UInt32] = []) {
            self.id = id
            self.allowed = allowed
            self.system = system
            self.users = users
        }
    }

    /// `[wifi] enable` (GeoClue's default true).
    package var wifi = true
    /// `[wifi] url`, if written.
    package var wifiURL: String?
    /// `[static-source] enable` (default false).
    package var staticSource = false
    /// The app sections, in the order written.
    package var apps: [App] = []
    /// `[agent] whitelist`, if written (G34).
    package var agentWhitelist: [String]?
    /// The keys locd does not carry, each with why (G33), in file order.
    package var notCarried: [GeoClueIssue] = []

    /// GeoClue's own sections: sources and the agent; every other section is an app's.
    static let sourceSections: Set<String> = [
        "agent", "network-nmea", "3g", "cdma", "modem-gps", "wifi", "compass", "static-source",
    ]

    /// Why each source locd has no counterpart for is not carried.
    static let uncarriedSources: [String: String] = [
        "network-nmea":
            "locd does not read NMEA receivers announced on the network nor GeoClue's nmea-socket; a receiver is a "
            + "gpsd provider in locd.toml ([[provider]] kind = \"gpsd\")",
        "3g": "locd has no cell-tower source (ModemManager)",
        "cdma": "locd has no CDMA source (ModemManager)",
        "modem-gps": "locd has no ModemManager source; a modem's GPS read by gpsd is a gpsd provider",
        "compass": "locd has no heading source (iio-sensor-proxy's compass)",
    ]

    package init() {}

    /// The meaning of `keyFile`.
    /// - Throws: a key locd carries whose value it cannot read (`enable=yes`, `users=alice`), naming file, line
    ///   and key (G30).
    package init(_ keyFile: GeoClueKeyFile) throws(GeoClueIssue) {
        for section in keyFile.sections {
            if Self.sourceSections.contains(section.name) {
                try readSource(section)
            } else {
                try readApp(section)
            }
        }
        notCarried.sort { ($0.file, $0.line ?? 0) < ($1.file, $1.line ?? 0) }
    }

    private mutating func readSource(_ section: GeoClueKeyFile.Section) throws(GeoClueIssue) {
        let name = section.name
        var enabled = name != "static-source"
        if let entry = section.entries["enable"] { enabled = try entry.bool(section: name, key: "enable") }
        for key in section.keys {
            let entry = section.entries[key]!
            func skip(_ why: String) {
                notCarried.append(GeoClueIssue(file: entry.file, line: entry.line, key: name + "." + key, message: why))
            }
            switch (name, key) {
            case (_, "enable"):
                if enabled, let why = Self.uncarriedSources[name] { skip("not carried: " + why) }
            case ("agent", "whitelist"):
                agentWhitelist = entry.list
            case ("wifi", "url"):
                wifiURL = entry.value
            case ("wifi", "submit-data"):
                if try entry.bool(section: name, key: key) {
                    skip("not carried: locd never submits Wi-Fi or position data to a service")
                }
            case ("wifi", "submission-url"), ("wifi", "submission-nick"):
                // Meaningful only with submit-data=true, which is reported itself.
                break
            case ("network-nmea", "nmea-socket"):
                if enabled { skip("not carried: " + Self.uncarriedSources[name]!) }
            default:
                skip("not carried: GeoClue 2.6 defines no key \(key) in [\(name)], nor does locd")
            }
        }
        switch name {
        case "wifi": wifi = enabled
        case "static-source": staticSource = enabled
        default: break
        }
    }

    private mutating func readApp(_ section: GeoClueKeyFile.Section) throws(GeoClueIssue) {
        var app = App(id: section.name)
        for key in section.keys {
            let entry = section.entries[key]!
            switch key {
            case "allowed": app.allowed = try entry.bool(section: section.name, key: key)
            case "system": app.system = try entry.bool(section: section.name, key: key)
            case "users":
                app.users = []
                for item in entry.list {
                    guard let uid = UInt32(item) else {
                        throw GeoClueIssue(
                            file: entry.file,
                            line: entry.line,
                            key: section.name + ".users",
                            message: "expected uids separated by ;, found \"\(item)\""
                        )
                    }
                    app.users.append(uid)
                }
            default:
                notCarried.append(
                    GeoClueIssue(
                        file: entry.file,
                        line: entry.line,
                        key: section.name + "." + key,
                        message: "not carried: an app's section has allowed, system and users only"
                    )
                )
            }
        }
        apps.append(app)
    }
}
