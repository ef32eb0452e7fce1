import AppIdentifiers
import JSON
import LocationCore
import LocationProtocol
import Varlink

/// Turns a Varlink call of `io.locd.App` or `io.locd.Admin` into the core's ``Call``, checking every
/// parameter's presence and type; bad input becomes the standard error that names the parameter.
package enum CallDecoder {
    /// The call, or the error that answers it.
    package static func decode(_ call: VarlinkCall) -> Result<Call, VarlinkError> {
        let reader = ParameterReader(parameters: call.parameters)
        do throws(VarlinkError) {
            let decoded: Call
            let interface = call.interface
            switch interface {
            case AppMethod.interface: decoded = try app(call.method, reader, more: call.more)
            case AdminMethod.interface: decoded = try admin(call.method, reader)
            default: return .failure(.interfaceNotFound(interface))
            }
            return decoded.isStreaming && !call.more ? .failure(.expectedMore) : .success(decoded)
        } catch {
            return .failure(error)
        }
    }

    /// - Parameter more: whether the call asked with `more`: a session call then hears its session first (R11).
    private static func app(_ name: String, _ p: ParameterReader, more: Bool) throws(VarlinkError) -> Call {
        guard let method = AppMethod(rawValue: name) else { throw VarlinkError.methodNotFound(name) }
        do {
            switch method {
            case .hello:
                return try hello(p)
            case .goodbye:
                try p.only([])
                return .goodbye
            case .setAppState:
                try p.only(["state"])
                return .setAppState(try p.enumeration("state"))
            case .getAuthorization:
                try p.only([])
                return .getAuthorization
            case .watchAuthorization:
                try p.only([])
                return .watchAuthorization
            case .requestAuthorization:
                try p.only(["level"])
                return .requestAuthorization(try p.enumeration("level"))
            case .requestTemporaryFullAccuracy:
                try p.only(["purposeKey"])
                return .requestTemporaryFullAccuracy(purposeKey: try p.string("purposeKey"))
            case .createSession:
                try p.only(["authorization", "fullAccuracyPurposeKey"])
                return .createSession(
                    try p.enumeration("authorization"),
                    purposeKey: try p.optionalString("fullAccuracyPurposeKey"),
                    more: more
                )
            case .resumeSession:
                try p.only(["id"])
                return .resumeSession(try p.string("id"), more: more)
            case .invalidateSession:
                try p.only(["id"])
                return .invalidateSession(try p.string("id"))
            case .listSessions:
                try p.only([])
                return .listSessions
            case .sessionDiagnostics:
                try p.only(["id"])
                return .sessionDiagnostics(try p.string("id"))
            case .beginBackgroundActivity:
                try p.only([])
                return .beginBackgroundActivity
            case .liveUpdates:
                try p.only(["configuration", "accuracy", "session"])
                return .liveUpdates(
                    try p.optionalEnum("configuration") ?? .standard,
                    accuracy: try p.optionalEnum("accuracy"),
                    session: try p.optionalString("session")
                )
            case .addCondition:
                try p.only(["monitor", "identifier", "condition"])
                return .addCondition(
                    monitor: try p.string("monitor"),
                    identifier: try p.string("identifier"),
                    condition: try p.circularCondition("condition")
                )
            case .removeCondition:
                try p.only(["monitor", "identifier"])
                return .removeCondition(monitor: try p.string("monitor"), identifier: try p.string("identifier"))
            case .monitorEvents:
                try p.only(["monitor"])
                return .monitorEvents(monitor: try p.string("monitor"))
            }
        }
    }

    /// The longest `description` a broker may pass with `Hello` (I11), in UTF-8 bytes: a prompt's sentence.
    static let maximumDescriptionBytes = 1024

    /// `Hello`, or with `process` a broker's `Hello` for that process (I8, I11).
    private static func hello(_ p: ParameterReader) throws(VarlinkError) -> Call {
        try p.only(["appId", "state", "process", "description"])
        let appID = try p.appID("appId")
        let state: RunningState? = try p.optionalEnum("state")
        let description = try p.optionalString("description")
        guard let process = try p.optionalInt("process", in: 1...Int64(Int32.max)) else {
            guard description == nil else {
                throw .invalidParameter(
                    "description",
                    message: "description is the usage description a broker passes with process; an app that "
                        + "connects itself puts its description in its manifest"
                )
            }
            return .hello(appID: appID, state: state)
        }
        if let description, description.utf8.count > maximumDescriptionBytes || description.isEmpty {
            throw .invalidParameter(
                "description",
                message: "expected 1 to \(maximumDescriptionBytes) bytes of text, found \(description.utf8.count)"
            )
        }
        // A prompt agent shows it to the person: no line breaks or terminal escapes to dress up the prompt.
        if let description, description.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw .invalidParameter(
                "description",
                message: "expected one line of text without control characters (line breaks, escapes)"
            )
        }
        return .brokeredHello(appID: appID, state: state, process: Int32(process), description: description, uid: nil)
    }

    private static func admin(_ name: String, _ p: ParameterReader) throws(VarlinkError) -> Call {
        guard let method = AdminMethod(rawValue: name) else { throw VarlinkError.methodNotFound(name) }
        do {
            switch method {
            case .status:
                try p.only([])
                return .status
            case .listApps:
                try p.only(["user"])
                return .listApps(user: try user(p))
            case .listSessions:
                try p.only(["appId", "user"])
                return .adminListSessions(appID: try p.optionalAppID("appId"), user: try user(p))
            case .setAuthorization:
                try p.only(["appId", "setting", "precise", "user"])
                return .setAuthorization(
                    appID: try p.appID("appId"),
                    setting: try p.optionalEnum("setting"),
                    precise: try p.optionalBool("precise"),
                    user: try user(p)
                )
            case .setLocationServices:
                try p.only(["enabled"])
                return .setLocationServices(try p.bool("enabled"))
            case .setAppState:
                try p.only(["appId", "state", "user"])
                return .adminSetAppState(
                    appID: try p.appID("appId"),
                    state: try p.enumeration("state"),
                    user: try user(p)
                )
            case .setDesktop:
                return try setDesktop(p)
            case .locationButton:
                try p.only(["appId", "user"])
                return .locationButton(appID: try p.appID("appId"), user: try user(p))
            case .prompts:
                return try prompts(p)
            case .answerPrompt:
                try p.only(["id", "answer", "accuracy"])
                return .answerPrompt(
                    id: try p.string("id"),
                    answer: try p.enumeration("answer"),
                    accuracy: try p.optionalEnum("accuracy")
                )
            case .watch:
                try p.only([])
                return .watch
            case .forgetApps:
                return try forgetApps(p)
            case .reload:
                // SessionManager answers Reload before it decodes a call: the core has no Call for it.
                throw VarlinkError.methodNotFound(name)
            }
        }
    }
}

extension CallDecoder {
    /// The `user` an `io.locd.Admin` call names (H4): a uid, which only an administrator may give for another user.
    fileprivate static func user(_ p: ParameterReader) throws(VarlinkError) -> UInt32? {
        // (uid_t) -1 is no uid: setresuid reads it as "unchanged", and no process runs as it.
        try p.optionalInt("user", in: 0...Int64(UInt32.max - 1)).map { UInt32($0) }
    }

    /// `Prompts`: its user's own, every user's (`everyone`), or with `users` only those users' (H7, P14).
    fileprivate static func prompts(_ p: ParameterReader) throws(VarlinkError) -> Call {
        try p.only(["everyone", "users"])
        let everyone = try p.optionalBool("everyone") == true
        guard let users = try p.optionalUIDs("users") else { return everyone ? .promptsOfEveryone : .prompts }
        guard everyone else {
            throw .invalidParameter(
                "users",
                message: "users narrows a stream of every user's prompts: give everyone: true with it, or leave "
                    + "out users for your own prompts"
            )
        }
        return .promptsOfUsers(users)
    }

    /// `ForgetApps`: exactly one of `owner` (a uid) and `ownerUnknown: true` (F20).
    fileprivate static func forgetApps(_ p: ParameterReader) throws(VarlinkError) -> Call {
        try p.only(["owner", "ownerUnknown"])
        // (uid_t) -1 is no uid: setresuid reads it as "unchanged", and no process runs as it.
        let uid = try p.optionalInt("owner", in: 0...Int64(UInt32.max - 1))
        let unknown = try p.optionalBool("ownerUnknown") ?? false
        switch (uid, unknown) {
        case (let uid?, false): return .forgetApps(owner: .uid(UInt32(uid)))
        case (nil, true): return .forgetApps(owner: .unknown)
        case (_?, true):
            throw .invalidParameter(
                "ownerUnknown",
                message: "give owner (a uid) or ownerUnknown: true, not both"
            )
        case (nil, false):
            throw .invalidParameter(
                "owner",
                message: "missing: give owner, the uid whose apps to forget (locctl apps shows it), or "
                    + "ownerUnknown: true for the apps whose maker is unknown"
            )
        }
    }
}

/// Reads typed parameters, throwing `InvalidParameter` with a message that says what was expected.
struct ParameterReader {
    let parameters: JSONObject

    /// Refuses parameters the method does not declare. A method declares a handful: a search through them
    /// costs less than building a set of them at every call.
    func only(_ names: [String]) throws(VarlinkError) {
        for (key, _) in parameters.fields where !names.contains(key) {
            let allowed = names.isEmpty ? "it takes none" : "it takes " + names.sorted().joined(separator: ", ")
            throw .invalidParameter(key, message: "unknown parameter \(key): \(allowed)")
        }
    }

    private func value(_ name: String) -> JSONValue? {
        guard let value = parameters[name], value != .null else { return nil }
        return value
    }

    func optionalString(_ name: String) throws(VarlinkError) -> String? {
        guard let value = value(name) else { return nil }
        guard let string = value.stringValue else {
            throw .invalidParameter(name, message: "expected a string, found \(value.typeName)")
        }
        return string
    }

    func string(_ name: String) throws(VarlinkError) -> String {
        guard let string = try optionalString(name) else {
            throw .invalidParameter(name, message: "missing: \(name) is required")
        }
        return string
    }

    /// An app id that follows SEMANTICS I15, if present.
    func optionalAppID(_ name: String) throws(VarlinkError) -> String? {
        guard let id = try optionalString(name) else { return nil }
        guard AppIdentifier.isValid(id) else {
            throw .invalidParameter(name, message: "not an app id: \(AppIdentifier.rule)")
        }
        return id
    }

    /// A required app id that follows SEMANTICS I15.
    func appID(_ name: String) throws(VarlinkError) -> String {
        guard let id = try optionalAppID(name) else {
            throw .invalidParameter(name, message: "missing: \(name) is required")
        }
        return id
    }

    /// A `CircularCondition` object: latitude, longitude and radius, all numbers.
    func circularCondition(_ name: String) throws(VarlinkError) -> CircularCondition {
        guard let value = value(name) else { throw .invalidParameter(name, message: "missing: \(name) is required") }
        guard case .object(let object) = value else {
            throw .invalidParameter(name, message: "expected a CircularCondition object, found \(value.typeName)")
        }
        var numbers: [Double] = []
        for field in ["latitude", "longitude", "radius"] {
            guard let number = object[field]?.doubleValue else {
                throw .invalidParameter(name, message: "\(name).\(field) must be a number")
            }
            numbers.append(number)
        }
        return CircularCondition(latitude: numbers[0], longitude: numbers[1], radius: numbers[2])
    }

    /// An integer within `range`, if present.
    func optionalInt(_ name: String, in range: ClosedRange<Int64>) throws(VarlinkError) -> Int64? {
        guard let value = value(name) else { return nil }
        guard case .int(let number) = value else {
            throw .invalidParameter(name, message: "expected an integer, found \(value.typeName)")
        }
        guard range.contains(number) else {
            throw .invalidParameter(
                name,
                message: "expected \(range.lowerBound) to \(range.upperBound), found \(number)"
            )
        }
        return number
    }

    /// An array of uids, if present: each an integer from 0 to 4294967294 ((uid_t) -1 is no uid).
    func optionalUIDs(_ name: String) throws(VarlinkError) -> Set<UInt32>? {
        guard let value = value(name) else { return nil }
        guard case .array(let elements) = value else {
            throw .invalidParameter(name, message: "expected an array of uids, found \(value.typeName)")
        }
        var uids: Set<UInt32> = []
        for element in elements {
            guard case .int(let number) = element, (0...Int64(UInt32.max - 1)).contains(number) else {
                throw .invalidParameter(
                    name,
                    message: "expected uids (integers from 0 to \(UInt32.max - 1)), found \(element)"
                )
            }
            uids.insert(UInt32(number))
        }
        return uids
    }

    func optionalBool(_ name: String) throws(VarlinkError) -> Bool? {
        guard let value = value(name) else { return nil }
        guard let bool = value.boolValue else {
            throw .invalidParameter(name, message: "expected a bool, found \(value.typeName)")
        }
        return bool
    }

    func bool(_ name: String) throws(VarlinkError) -> Bool {
        guard let bool = try optionalBool(name) else {
            throw .invalidParameter(name, message: "missing: \(name) is required")
        }
        return bool
    }

    func optionalEnum<E: RawRepresentable & CaseIterable>(_ name: String) throws(VarlinkError) -> E?
    where E.RawValue == String {
        guard let text = try optionalString(name) else { return nil }
        guard let value = E(rawValue: text) else {
            let allowed = E.allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalidParameter(name, message: "\(text) is not one of: \(allowed)")
        }
        return value
    }

    func enumeration<E: RawRepresentable & CaseIterable>(_ name: String) throws(VarlinkError) -> E
    where E.RawValue == String {
        guard let value: E = try optionalEnum(name) else {
            throw .invalidParameter(name, message: "missing: \(name) is required")
        }
        return value
    }
}
