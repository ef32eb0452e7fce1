import JSON

/// `ProviderStatus` of io.locd.Admin: one provider as `Status` reports it (U3, U14, U16).
package struct WireProviderStatus: Hashable, Sendable {
    /// The kind, numbered from its second table on (`gpsd#2`).
    package var name: String
    package var running: Bool
    package var hasFix: Bool
    /// Unix time of the newest fix, kept after the fix is lost.
    package var lastFix: Double?
    /// `stopped`, `connecting`, `running`, `retrying` or `failed`.
    package var state: String?
    /// Its point, file, gpsd or locd-network address.
    package var source: String?
    package var lastLatitude: Double?
    package var lastLongitude: Double?
    /// Why it is retrying or failed.
    package var lastError: String?
    /// `static`, `nmea`, `gpsd` or `network`.
    package var kind: String?
    package var lastAccuracy: Double?

    package init(
        name: String,
        running: Bool,
        hasFix: Bool,
        lastFix: Double? = nil,
        state: String? = nil,
        source: String? = nil,
        lastLatitude: Double? = nil,
        lastLongitude: Double? = nil,
        lastError: String? = nil,
        kind: String? = nil,
        lastAccuracy: Double? = nil
    ) {
        self.name = name
        self.running = running
        self.hasFix = hasFix
        self.lastFix = lastFix
        self.state = state
        self.source = source
        self.lastLatitude = lastLatitude
        self.lastLongitude = lastLongitude
        self.lastError = lastError
        self.kind = kind
        self.lastAccuracy = lastAccuracy
    }

    /// The same without the point of its last fix, nor its source (a static provider's source is a point): what
    /// a caller that may not administer is told (H4).
    package var withoutPlace: WireProviderStatus {
        var status = self
        (status.lastLatitude, status.lastLongitude, status.lastAccuracy, status.source) = (nil, nil, nil, nil)
        return status
    }

    /// Reads one; nil without its name. Missing Bools are false.
    package init?(json value: JSONValue?) {
        guard let value, let name = value["name"]?.stringValue else { return nil }
        self.init(
            name: name,
            running: value["running"]?.boolValue ?? false,
            hasFix: value["hasFix"]?.boolValue ?? false,
            lastFix: value["lastFix"]?.doubleValue,
            state: value["state"]?.stringValue,
            source: value["source"]?.stringValue,
            lastLatitude: value["lastLatitude"]?.doubleValue,
            lastLongitude: value["lastLongitude"]?.doubleValue,
            lastError: value["lastError"]?.stringValue,
            kind: value["kind"]?.stringValue,
            lastAccuracy: value["lastAccuracy"]?.doubleValue
        )
    }

    package var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("name", .string(name)), ("running", .bool(running)), ("hasFix", .bool(hasFix)),
        ]
        if let lastFix { fields.append(("lastFix", .double(lastFix))) }
        if let state { fields.append(("state", .string(state))) }
        if let source { fields.append(("source", .string(source))) }
        if let lastLatitude { fields.append(("lastLatitude", .double(lastLatitude))) }
        if let lastLongitude { fields.append(("lastLongitude", .double(lastLongitude))) }
        if let lastError { fields.append(("lastError", .string(lastError))) }
        if let kind { fields.append(("kind", .string(kind))) }
        if let lastAccuracy { fields.append(("lastAccuracy", .double(lastAccuracy))) }
        return .object(JSONObject(fields))
    }
}

/// `DesktopStatus`: a user's desktop source (SEMANTICS L11, L13).
package struct WireDesktopStatus: Hashable, Sendable {
    package var desktop: String
    package var user: UInt32
    /// Whether its last report read the desktop (only then does it decide).
    package var reading: Bool
    package var locked: Bool
    /// Why it cannot read the desktop.
    package var failure: String?

    package init(desktop: String, user: UInt32, reading: Bool, locked: Bool, failure: String? = nil) {
        self.desktop = desktop
        self.user = user
        self.reading = reading
        self.locked = locked
        self.failure = failure
    }

    /// Reads one; nil without its desktop or user.
    package init?(json value: JSONValue?) {
        guard let value, let desktop = value["desktop"]?.stringValue,
            let user = value["user"]?.intValue.flatMap(UInt32.init(exactly:))
        else { return nil }
        self.init(
            desktop: desktop,
            user: user,
            reading: value["reading"]?.boolValue ?? false,
            locked: value["locked"]?.boolValue ?? false,
            failure: value["failure"]?.stringValue
        )
    }

    package var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("desktop", .string(desktop)), ("user", .int(Int64(user))), ("reading", .bool(reading)),
            ("locked", .bool(locked)),
        ]
        if let failure { fields.append(("failure", .string(failure))) }
        return .object(JSONObject(fields))
    }
}
