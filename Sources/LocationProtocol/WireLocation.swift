import JSON

/// `Location`: a fix; `timestamp` is Unix time in seconds. Absent optionals are left out, as the IDL's `?` allows.
package struct WireLocation: Hashable, Sendable {
    package var latitude: Double
    package var longitude: Double
    package var altitude: Double?
    package var horizontalAccuracy: Double
    package var verticalAccuracy: Double?
    package var speed: Double?
    package var course: Double?
    package var timestamp: Double

    package init(
        latitude: Double,
        longitude: Double,
        altitude: Double? = nil,
        horizontalAccuracy: Double,
        verticalAccuracy: Double? = nil,
        speed: Double? = nil,
        course: Double? = nil,
        timestamp: Double
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.timestamp = timestamp
    }

    /// Reads one; nil without its latitude, longitude, horizontal accuracy or time.
    package init?(json value: JSONValue?) {
        guard let value, let latitude = value["latitude"]?.doubleValue, let longitude = value["longitude"]?.doubleValue,
            let horizontalAccuracy = value["horizontalAccuracy"]?.doubleValue,
            let timestamp = value["timestamp"]?.doubleValue
        else { return nil }
        self.init(
            latitude: latitude,
            longitude: longitude,
            altitude: value["altitude"]?.doubleValue,
            horizontalAccuracy: horizontalAccuracy,
            verticalAccuracy: value["verticalAccuracy"]?.doubleValue,
            speed: value["speed"]?.doubleValue,
            course: value["course"]?.doubleValue,
            timestamp: timestamp
        )
    }

    package var json: JSONValue {
        var fields: [(String, JSONValue)] = [("latitude", .double(latitude)), ("longitude", .double(longitude))]
        if let altitude { fields.append(("altitude", .double(altitude))) }
        fields.append(("horizontalAccuracy", .double(horizontalAccuracy)))
        if let verticalAccuracy { fields.append(("verticalAccuracy", .double(verticalAccuracy))) }
        if let speed { fields.append(("speed", .double(speed))) }
        if let course { fields.append(("course", .double(course))) }
        fields.append(("timestamp", .double(timestamp)))
        return .object(JSONObject(fields))
    }
}

/// `Update`: a `LiveUpdates` message, a location or none, and why.
package struct WireUpdate: Hashable, Sendable {
    package var location: WireLocation?
    package var diagnostic: WireDiagnostic

    package init(location: WireLocation?, diagnostic: WireDiagnostic) {
        self.location = location
        self.diagnostic = diagnostic
    }

    /// Reads one; nil without its diagnostic or with a location that is not one.
    package init?(json value: JSONValue?) {
        guard let diagnostic = WireDiagnostic(json: value?["diagnostic"]) else { return nil }
        switch value?["location"] {
        case nil, .null?: location = nil
        case let fix?:
            guard let location = WireLocation(json: fix) else { return nil }
            self.location = location
        }
        self.diagnostic = diagnostic
    }

    package var json: JSONValue {
        var fields: [(String, JSONValue)] = []
        if let location { fields.append(("location", location.json)) }
        fields.append(("diagnostic", diagnostic.json))
        return .object(JSONObject(fields))
    }
}

/// `MonitorEvent`: a condition's state, or with an empty identifier the monitor's own diagnostic.
package struct WireMonitorEvent: Hashable, Sendable {
    package var monitor: String
    package var identifier: String
    /// `unknown`, `satisfied` or `unsatisfied`.
    package var state: String
    /// Unix time in seconds.
    package var date: Double
    package var diagnostic: WireDiagnostic

    package init(monitor: String, identifier: String, state: String, date: Double, diagnostic: WireDiagnostic) {
        self.monitor = monitor
        self.identifier = identifier
        self.state = state
        self.date = date
        self.diagnostic = diagnostic
    }

    /// Reads one; nil without its monitor, state or diagnostic. A missing identifier is empty, a missing date 0.
    package init?(json value: JSONValue?) {
        guard let value, let monitor = value["monitor"]?.stringValue, let state = value["state"]?.stringValue,
            let diagnostic = WireDiagnostic(json: value["diagnostic"])
        else { return nil }
        self.init(
            monitor: monitor,
            identifier: value["identifier"]?.stringValue ?? "",
            state: state,
            date: value["date"]?.doubleValue ?? 0,
            diagnostic: diagnostic
        )
    }

    package var json: JSONValue {
        .object([
            "monitor": .string(monitor), "identifier": .string(identifier), "state": .string(state),
            "date": .double(date), "diagnostic": diagnostic.json,
        ])
    }
}
