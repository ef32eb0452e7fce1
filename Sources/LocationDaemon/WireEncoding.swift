import LocationCore
import Varlink

// The core's views as the IDL's types, field for field in IDL order. Enum cases use their raw values,
// which are the wire strings (STYLE habit 3).

extension AuthorizationView {
    var json: JSONValue {
        .object([
            "status": .string(status.rawValue),
            "accuracy": .string(accuracy.rawValue),
            "provisional": .bool(provisional),
            "oneTime": .bool(oneTime),
            "temporaryFullAccuracy": .bool(temporaryFullAccuracy),
            "settingsLabel": .string(settingsLabel.rawValue),
        ])
    }
}

extension DiagnosticMask {
    var json: JSONValue {
        .object(["flags": .array(flagNames.map { .string($0) }), "mask": .int(Int64(rawValue))])
    }
}

extension Fix {
    /// The IDL's `Location`; absent optionals are left out, as the IDL's `?` allows.
    var json: JSONValue {
        var object: JSONObject = ["latitude": .double(latitude), "longitude": .double(longitude)]
        if let altitude { object["altitude"] = .double(altitude) }
        object["horizontalAccuracy"] = .double(horizontalAccuracy)
        if let verticalAccuracy { object["verticalAccuracy"] = .double(verticalAccuracy) }
        if let speed { object["speed"] = .double(speed) }
        if let course { object["course"] = .double(course) }
        object["timestamp"] = .double(timestamp)
        return .object(object)
    }
}

extension MonitorEventView {
    /// The IDL's `MonitorEvent`; `now` dates an event whose state no fix has set yet.
    func json(now: Double) -> JSONValue {
        .object([
            "monitor": .string(monitor), "identifier": .string(identifier), "state": .string(state.rawValue),
            "date": .double(date ?? now), "diagnostic": diagnostic.json,
        ])
    }
}

extension SessionView {
    var json: JSONValue {
        var object: JSONObject = [
            "id": .string(id.description),
            "appId": .string(appID),
            "kind": .string(kind.rawValue),
            "authorization": .string(requirement.rawValue),
        ]
        if let purposeKey { object["fullAccuracyPurposeKey"] = .string(purposeKey) }
        object["state"] = .string(state.rawValue)
        object["diagnostic"] = diagnostic.json
        if let deadline { object["deadline"] = .int(deadline.nanoseconds) }
        if let remaining { object["remainingSeconds"] = .double(max(0, remaining.seconds)) }
        return .object(object)
    }
}

extension PromptView {
    func json(clock: DaemonClock) -> JSONValue {
        var object: JSONObject = [
            "id": .string(id.description),
            "appId": .string(appID),
            "kind": .string(kind.rawValue),
            "usageDescription": .string(usageDescription),
        ]
        if let purposeKey { object["purposeKey"] = .string(purposeKey) }
        object["options"] = .array(options.map { .string($0.rawValue) })
        object["defaultAccuracy"] = .string(defaultAccuracy.rawValue)
        object["accuracyToggle"] = .bool(accuracyToggle)
        object["raisedAt"] = .double(clock.unixTime(of: raisedAt))
        return .object(object)
    }
}

extension AppView {
    var json: JSONValue {
        .object([
            "appId": .string(appID),
            "manifest": .string(manifest),
            "state": .string(state.rawValue),
            "inUse": .bool(inUse),
            "usingLocationInBackground": .bool(usingLocationInBackground),
            "authorization": authorization.json,
            "clients": .int(Int64(clients)),
            "sessions": .int(Int64(sessions)),
        ])
    }
}

extension AdminEvent {
    func json(clock: DaemonClock) -> JSONValue {
        var object: JSONObject = ["kind": .string(kind.rawValue)]
        if let appID { object["appId"] = .string(appID) }
        if let sessionID { object["sessionId"] = .string(sessionID.description) }
        object["detail"] = .string(detail)
        object["timestamp"] = .double(clock.unixTime(of: at))
        return .object(object)
    }
}

extension LocationError {
    /// The Varlink error reply: the IDL's parameters plus a `message` that says what to do.
    var varlinkError: VarlinkError {
        var parameters = JSONObject()
        for (name, value) in self.parameters {
            switch value {
            case .string(let string): parameters[name] = .string(string)
            case .int(let int): parameters[name] = .int(Int64(int))
            }
        }
        parameters["message"] = .string(message)
        return VarlinkError(name: varlinkName, parameters: parameters)
    }
}
