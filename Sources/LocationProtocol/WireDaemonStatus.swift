import JSON

/// `DaemonStatus` of io.locd.Admin: `Status`'s answer, in IDL order.
package struct WireDaemonStatus: Hashable, Sendable {
    package var version: String
    package var pid: Int
    package var uptimeSeconds: Double
    package var locationServicesEnabled: Bool
    /// The provider that supplied the last fix, else the first.
    package var provider: WireProviderStatus
    package var storeHealthy: Bool
    package var apps: Int
    package var clients: Int
    package var sessions: Int
    package var lingeringSessions: Int
    package var pendingPrompts: Int
    package var agents: Int
    /// Calls locd has run since it started, on every connection (F19).
    package var calls: Int
    /// Apps receiving location right now.
    package var appsUsingLocation: [String]
    /// Those of them in the background under a While-Using grant.
    package var appsUsingLocationInBackground: [String]
    /// Every configured provider, in configuration order (U16).
    package var providers: [WireProviderStatus]
    package var lastFixFrom: String?
    /// Whether the caller may administer (SEMANTICS I3).
    package var administrator: Bool
    /// A caller's own switch, for a caller that may not administer (H6).
    package var locationServicesEnabledForUser: Bool?
    /// Absent when no desktop reports.
    package var desktops: [WireDesktopStatus]?

    package init(
        version: String,
        pid: Int,
        uptimeSeconds: Double,
        locationServicesEnabled: Bool,
        provider: WireProviderStatus,
        storeHealthy: Bool,
        counts: (apps: Int, clients: Int, sessions: Int, lingeringSessions: Int, pendingPrompts: Int, agents: Int),
        calls: Int,
        appsUsingLocation: [String],
        appsUsingLocationInBackground: [String],
        providers: [WireProviderStatus],
        lastFixFrom: String? = nil,
        administrator: Bool,
        locationServicesEnabledForUser: Bool? = nil,
        desktops: [WireDesktopStatus]? = nil
    ) {
        self.version = version
        self.pid = pid
        self.uptimeSeconds = uptimeSeconds
        self.locationServicesEnabled = locationServicesEnabled
        self.provider = provider
        self.storeHealthy = storeHealthy
        (apps, clients, sessions) = (counts.apps, counts.clients, counts.sessions)
        (lingeringSessions, pendingPrompts, agents) = (counts.lingeringSessions, counts.pendingPrompts, counts.agents)
        self.calls = calls
        self.appsUsingLocation = appsUsingLocation
        self.appsUsingLocationInBackground = appsUsingLocationInBackground
        self.providers = providers
        self.lastFixFrom = lastFixFrom
        self.administrator = administrator
        self.locationServicesEnabledForUser = locationServicesEnabledForUser
        self.desktops = desktops
    }

    /// Reads one; nil without its version or provider. Missing counts are 0, missing lists empty, missing Bools
    /// false.
    package init?(json value: JSONValue?) {
        guard let value, let version = value["version"]?.stringValue,
            let provider = WireProviderStatus(json: value["provider"])
        else { return nil }
        func int(_ key: String) -> Int { Int(truncatingIfNeeded: value[key]?.intValue ?? 0) }
        func strings(_ key: String) -> [String] { value[key]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        self.init(
            version: version,
            pid: int("pid"),
            uptimeSeconds: value["uptimeSeconds"]?.doubleValue ?? 0,
            locationServicesEnabled: value["locationServicesEnabled"]?.boolValue ?? false,
            provider: provider,
            storeHealthy: value["storeHealthy"]?.boolValue ?? false,
            counts: (
                int("apps"), int("clients"), int("sessions"), int("lingeringSessions"), int("pendingPrompts"),
                int("agents")
            ),
            calls: int("calls"),
            appsUsingLocation: strings("appsUsingLocation"),
            appsUsingLocationInBackground: strings("appsUsingLocationInBackground"),
            providers: value["providers"]?.arrayValue?.compactMap { WireProviderStatus(json: $0) } ?? [],
            lastFixFrom: value["lastFixFrom"]?.stringValue,
            administrator: value["administrator"]?.boolValue ?? false,
            locationServicesEnabledForUser: value["locationServicesEnabledForUser"]?.boolValue,
            desktops: value["desktops"]?.arrayValue?.compactMap { WireDesktopStatus(json: $0) }
        )
    }

    package var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("version", .string(version)), ("pid", .int(Int64(pid))), ("uptimeSeconds", .double(uptimeSeconds)),
            ("locationServicesEnabled", .bool(locationServicesEnabled)), ("provider", provider.json),
            ("storeHealthy", .bool(storeHealthy)), ("apps", .int(Int64(apps))), ("clients", .int(Int64(clients))),
            ("sessions", .int(Int64(sessions))), ("lingeringSessions", .int(Int64(lingeringSessions))),
            ("pendingPrompts", .int(Int64(pendingPrompts))), ("agents", .int(Int64(agents))),
            ("calls", .int(Int64(calls))), ("appsUsingLocation", .array(appsUsingLocation.map { .string($0) })),
            ("appsUsingLocationInBackground", .array(appsUsingLocationInBackground.map { .string($0) })),
            ("providers", .array(providers.map(\.json))),
        ]
        if let lastFixFrom { fields.append(("lastFixFrom", .string(lastFixFrom))) }
        fields.append(("administrator", .bool(administrator)))
        if let own = locationServicesEnabledForUser { fields.append(("locationServicesEnabledForUser", .bool(own))) }
        if let desktops { fields.append(("desktops", .array(desktops.map(\.json)))) }
        return .object(JSONObject(fields))
    }
}
